package syncerror

import (
	"context"
	"errors"
	"net/http"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/tenant"
)

// The tenant's feature flags hold at every stage, not only at ingest: a tenant switched
// off is neither diagnosed nor written for, and its operators are told so. Reads (the
// queue, a row's detail, the groups) stay open: they change nothing, and an operator of a
// switched-off tenant still needs to see what is there.

// DisabledFlag names the tenant's first flag that is off ("" when the feature is on, or
// when tenants is nil). An unknown tenant counts as off.
func DisabledFlag(ctx context.Context, tenants tenant.Reader, tenantID string) (string, error) {
	if tenants == nil {
		return "", nil
	}
	cfg, err := tenants.Get(ctx, tenantID)
	if errors.Is(err, tenant.ErrNotFound) {
		return tenant.KeyEnabled, nil
	}
	if err != nil {
		return "", err
	}
	return cfg.DisabledFlag(), nil
}

// FeatureOn answers 403 feature_disabled (or 503 when the flags cannot be read) and
// returns false unless the tenant's feature is on.
func FeatureOn(w http.ResponseWriter, r *http.Request, tenants tenant.Reader, tenantID string) bool {
	flag, err := DisabledFlag(r.Context(), tenants, tenantID)
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The tenant's settings could not be read; nothing was changed. Retry shortly.")
		return false
	}
	if flag != "" {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, "feature_disabled",
			"Sync-error assistance is off for this tenant: "+flag+" is not 'true'; nothing was changed."))
		return false
	}
	return true
}
