// Package hostauth authenticates requests the host ERP signs with its tenant's webhook
// secret (Standard Webhooks v1): the sync-error webhook and the embedded-session host
// bootstrap. It answers every failure itself, with the same problem codes on every route,
// and never tells an unknown tenant from a wrong signature.
package hostauth

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/syncassist/syncassist/shared/bounded"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/webhook"
)

// HeaderTenantID names the tenant a request is signed for.
const HeaderTenantID = "X-Tenant-Id"

// Tenant is a tenant's configuration as far as host signatures go: the secrets of a
// purpose that are active now.
type Tenant interface {
	ActiveKeys(purpose string, now time.Time) [][]byte
}

// Directory finds the tenant a request is signed for. The package owns this interface so
// that it knows nothing of where tenants are kept (tenant.Directory implements it).
type Directory[T Tenant] interface {
	// Lookup returns the tenant called id; found is false when there is none (a malformed
	// id included). fresh bypasses any cache; cached says the answer came from one. Before
	// refusing a request on what a cache said, the authenticator looks again, fresh; an
	// answer read just now is not read again.
	Lookup(ctx context.Context, id string, fresh bool) (t T, found, cached bool, err error)
}

// Authenticator verifies host-signed requests against the tenant's active secrets.
type Authenticator[T Tenant] struct {
	// Purpose selects the tenant's secrets this route verifies with: each host-signed
	// route has its own, so one leaked secret opens one route.
	Purpose  string
	Tenants  Directory[T]
	Verifier webhook.Verifier
	Now      func() time.Time
	// MinRefresh is how often, per tenant, a request whose signature does not verify may
	// look the tenant up again past the cache (DefaultMinRefresh when zero): a just-rotated
	// secret counts at once, and a flood of bad signatures costs one consistent read per
	// interval, not one each.
	MinRefresh time.Duration
	// Hint, when set, ends the detail of this route's invalid_signature: what a sender
	// most likely signed with instead. It must say nothing of the tenant.
	Hint string

	// refreshed remembers each tenant's last fresh lookup, bounded: a forgotten tenant may
	// be read once more, which the cache's negative entries already limit.
	refreshed bounded.Map[string, time.Time]
}

// DefaultMinRefresh bounds fresh tenant lookups per tenant and process.
const DefaultMinRefresh = time.Second

func problem(status int, code, detail string) *httpapi.Problem {
	return httpapi.NewProblem(status, code, detail)
}

// Problems of host-signed routes (documented in the README's API reference).
var (
	errUnsupportedType = problem(http.StatusUnsupportedMediaType, "unsupported_media_type",
		"Send the body as Content-Type: application/json.")
	errTenantMissing = problem(http.StatusBadRequest, "tenant_header_missing",
		"Send the tenant id in the X-Tenant-Id header.")
	errSignatureMissing = problem(http.StatusUnauthorized, "signature_missing",
		"Send the webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks v1).")
	errTimestamp = problem(http.StatusUnauthorized, "timestamp_out_of_tolerance",
		"webhook-timestamp is more than 5 minutes from the service's clock; sign with the current unix time.")
	errTimestampFormat = problem(http.StatusUnauthorized, "timestamp_out_of_tolerance",
		"webhook-timestamp is not a Unix timestamp in seconds (digits only, such as 1764410400); sign with the current unix time.")
	errSignature = problem(http.StatusUnauthorized, "invalid_signature",
		"No webhook-signature matches this tenant's secrets and the exact body.")
)

func fail(w http.ResponseWriter, r *http.Request, p *httpapi.Problem) {
	cp := *p
	httpapi.WriteProblem(w, r, &cp)
}

// ReadSigned checks the content type and size, reads the body, and authenticates it for
// the X-Tenant-Id tenant. accept says whether the tenant's configuration lets the route
// act (its flags); when a cached configuration would refuse (signature or accept), it is
// read once more from the store so a just-rotated secret or just-enabled flag counts at
// once. The caller still decides what a refusing configuration answers. On failure
// ReadSigned has written the problem and returns ok=false; nothing else happened.
func (a *Authenticator[T]) ReadSigned(w http.ResponseWriter, r *http.Request, maxBytes int64, accept func(T) bool) (cfg T, body []byte, ok bool) {
	var none T
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		fail(w, r, errUnsupportedType)
		return none, nil, false
	}
	tooLarge := problem(http.StatusRequestEntityTooLarge, "payload_too_large",
		"The body exceeds the route's limit of "+byteSize(maxBytes)+".")
	if r.ContentLength > maxBytes {
		fail(w, r, tooLarge)
		return none, nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, r, tooLarge)
		} else {
			fail(w, r, problem(http.StatusBadRequest, "body_unreadable", "The request body could not be read."))
		}
		return none, nil, false
	}
	tenantID := r.Header.Get(HeaderTenantID)
	if tenantID == "" {
		fail(w, r, errTenantMissing)
		return none, nil, false
	}
	sig := webhook.HeadersFrom(r.Header)
	if _, err := a.Verifier.CheckHeaders(sig); err != nil {
		if errors.Is(err, webhook.ErrTimestampFormat) {
			fail(w, r, errTimestampFormat)
		} else if errors.Is(err, webhook.ErrTimestamp) {
			fail(w, r, errTimestamp)
		} else {
			fail(w, r, errSignatureMissing)
		}
		return none, nil, false
	}
	cfg, err = a.authenticate(r.Context(), tenantID, sig, body, accept)
	if err != nil {
		if errors.Is(err, webhook.ErrInvalidSignature) {
			p := *errSignature
			if a.Hint != "" {
				p.Detail += " " + a.Hint
			}
			fail(w, r, &p)
		} else {
			httpapi.WriteUnavailable(w, r, err, "Tenant configuration is unavailable; retry shortly.")
		}
		return none, nil, false
	}
	return cfg, body, true
}

// authenticate verifies sig against the tenant's active secrets. An unknown or malformed
// tenant id has no keys and fails exactly like a wrong signature.
func (a *Authenticator[T]) authenticate(ctx context.Context, tenantID string, sig webhook.Headers, body []byte, accept func(T) bool) (T, error) {
	for fresh := false; ; fresh = true {
		cfg, found, cached, err := a.Tenants.Lookup(ctx, tenantID, fresh)
		if err != nil {
			return cfg, err
		}
		var keys [][]byte
		if found {
			keys = cfg.ActiveKeys(a.Purpose, a.now())
		}
		verr := a.Verifier.Verify(sig, body, keys)
		if fresh || !cached || (verr == nil && (accept == nil || accept(cfg))) {
			return cfg, verr
		}
		// A signature that does not verify may be a just-rotated secret or a flood of
		// forgeries; only a validly signed request refused by its flags re-reads at once.
		if verr != nil && !a.mayRefresh(tenantID) {
			return cfg, verr
		}
	}
}

// mayRefresh reports whether tenantID may be looked up past the cache now, and if so
// counts this lookup.
func (a *Authenticator[T]) mayRefresh(tenantID string) bool {
	every := a.MinRefresh
	if every <= 0 {
		every = DefaultMinRefresh
	}
	now := a.now()
	return a.refreshed.Update(tenantID, func(last time.Time, ok bool) (time.Time, bool) {
		return now, !ok || now.Sub(last) >= every
	})
}

func (a *Authenticator[T]) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func byteSize(n int64) string {
	if n%1024 == 0 {
		return strconv.FormatInt(n/1024, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
