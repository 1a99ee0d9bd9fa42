package intake_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// The fold's tests run on the emulators too (fold_test.go).
func TestMain(m *testing.M) { emutest.Main(m) }

var clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func clockFunc() time.Time { return clock }

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func fixedAuth(tenants tenant.Reader, now func() time.Time) *hostauth.Authenticator[tenant.Config] {
	return &hostauth.Authenticator[tenant.Config]{Purpose: string(tenant.PurposeIngest), Tenants: tenant.Directory{Reader: tenants}, Verifier: webhook.Verifier{Now: now}, Now: now}
}

func recorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// operatorRequest is a POST to a row's route with body; the caller adds the identity.
func operatorRequest(t *testing.T, id, body string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/proposals/"+id+"/x", strings.NewReader(body))
	r.SetPathValue("id", id)
	return r
}

type noRedact struct{}

func (noRedact) RedactJSON(_ context.Context, doc []byte) ([]byte, error) { return doc, nil }

func claimed(t *testing.T, s syncerror.ClaimStore, tenantID, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	return syncerrortest.Claimed(t, s, tenantID, errorID, at)
}

func readyClaim(t *testing.T, s syncerror.ClaimStore, tenant, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	return syncerrortest.Ready(t, s, tenant, errorID, at)
}
