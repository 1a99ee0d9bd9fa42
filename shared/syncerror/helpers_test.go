package syncerror_test

import (
	"io"
	"log/slog"
	"time"

	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func fixedAuth(tenants tenant.Reader, now func() time.Time) *hostauth.Authenticator[tenant.Config] {
	return &hostauth.Authenticator[tenant.Config]{Purpose: string(tenant.PurposeIngest), Tenants: tenant.Directory{Reader: tenants}, Verifier: webhook.Verifier{Now: now}, Now: now}
}
