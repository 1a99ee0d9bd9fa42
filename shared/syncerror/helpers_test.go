package syncerror_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func fixedAuth(tenants tenant.Reader, now func() time.Time) *hostauth.Authenticator[tenant.Config] {
	return &hostauth.Authenticator[tenant.Config]{Purpose: string(tenant.PurposeIngest), Tenants: tenant.Directory{Reader: tenants}, Verifier: webhook.Verifier{Now: now}, Now: now}
}

func clockFunc() time.Time { return clock }

func recorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// operatorRequest is a POST to a row's route with body; the caller adds the identity.
func operatorRequest(t *testing.T, id, body string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/proposals/"+id+"/x", strings.NewReader(body))
	r.SetPathValue("id", id)
	return r
}
