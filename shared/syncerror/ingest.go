package syncerror

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// HeaderTenantID names the tenant a webhook is signed for.
const HeaderTenantID = "X-Tenant-Id"

// TenantReader reads tenant configurations.
type TenantReader interface {
	Get(ctx context.Context, id string) (tenant.Config, error)
}

// tenantRefresher is a TenantReader that may answer from a cache (tenant.Cache). Before
// refusing a request on what it said, the ingest asks it again from the store.
type tenantRefresher interface {
	Refresh(ctx context.Context, id string) (tenant.Config, error)
}

// Ingest is the signed webhook: it authenticates the host ERP, claims the sync error with
// one conditional write and enqueues its diagnosis.
type Ingest struct {
	Tenants  TenantReader
	Claims   ClaimStore
	Queue    Queue
	Verifier webhook.Verifier
	Now      func() time.Time
}

// IngestResponse is the 202 body.
type IngestResponse struct {
	ID        string `json:"id"`
	Status    Status `json:"status"`
	Duplicate bool   `json:"duplicate"`
}

func problem(status int, code, detail string) *httpapi.Problem {
	return httpapi.NewProblem(status, code, detail)
}

var (
	errUnsupportedType = problem(http.StatusUnsupportedMediaType, "unsupported_media_type",
		"Send the sync-error record as Content-Type: application/json.")
	errTooLarge = problem(http.StatusRequestEntityTooLarge, "payload_too_large",
		"The body exceeds 256 KiB; trim the payload field.")
	errTenantMissing = problem(http.StatusBadRequest, "tenant_header_missing",
		"Send the tenant id in the X-Tenant-Id header.")
	errSignatureMissing = problem(http.StatusUnauthorized, "signature_missing",
		"Send the webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks v1).")
	errTimestamp = problem(http.StatusUnauthorized, "timestamp_out_of_tolerance",
		"webhook-timestamp is more than 5 minutes from the service's clock; sign with the current unix time.")
	errSignature = problem(http.StatusUnauthorized, "invalid_signature",
		"No webhook-signature matches this tenant's secrets and the exact body.")
	errMalformed = problem(http.StatusBadRequest, "malformed_json",
		"The body is not a single JSON object.")
)

// ServeHTTP handles POST /api/sync-error-assist/ingest. The order is fixed: size and type,
// signature, tenant flags, validation, claim, enqueue. Nothing is stored or enqueued unless
// every check before the claim passed.
func (h *Ingest) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(p *httpapi.Problem) {
		cp := *p
		httpapi.WriteProblem(w, r, &cp)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		fail(errUnsupportedType)
		return
	}
	if r.ContentLength > MaxBodyBytes {
		fail(errTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(errTooLarge)
			return
		}
		fail(problem(http.StatusBadRequest, "body_unreadable", "The request body could not be read."))
		return
	}

	tenantID := r.Header.Get(HeaderTenantID)
	if tenantID == "" {
		fail(errTenantMissing)
		return
	}
	sig := webhook.HeadersFrom(r.Header)
	if _, err := h.Verifier.CheckHeaders(sig); err != nil {
		if errors.Is(err, webhook.ErrTimestamp) {
			fail(errTimestamp)
		} else {
			fail(errSignatureMissing)
		}
		return
	}
	ctx := r.Context()
	cfg, err := h.authenticate(ctx, tenantID, sig, body)
	if err != nil {
		if errors.Is(err, webhook.ErrInvalidSignature) {
			fail(errSignature)
		} else {
			httpapi.WriteUnavailable(w, r, err, "Tenant configuration is unavailable; retry shortly.")
		}
		return
	}
	if flag := cfg.DisabledFlag(); flag != "" {
		fail(problem(http.StatusForbidden, "feature_disabled",
			"Sync-error assistance is off for this tenant: "+flag+" is not 'true'."))
		return
	}

	rec, err := ParseRecord(body, tenantID)
	if err != nil {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			fail(errMalformed)
			return
		}
		p := problem(http.StatusBadRequest, "validation_failed", "The sync-error record has invalid fields; see errors.")
		for _, fe := range ve.Fields {
			p.Errors = append(p.Errors, httpapi.FieldError{Field: fe.Field, Message: fe.Message})
		}
		fail(p)
		return
	}

	claim := NewClaim(rec, SourceWebhook, sig.ID, h.now())
	created, err := h.Claims.Claim(ctx, claim)
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The sync error could not be recorded; nothing was stored. Retry shortly.")
		return
	}
	if created {
		// A failed send leaves the row queued; the reconcile re-enqueues it, so the host
		// still gets 202 and nothing is lost.
		if err := h.Queue.Send(ctx, Message{TenantID: claim.TenantID, ID: claim.ID}); err != nil {
			httpapi.Logger(ctx).Warn("diagnosis enqueue failed; the reconcile will re-enqueue",
				"tenant", claim.TenantID, "id", claim.ID, "error", err)
		}
	}
	status := StatusPending
	if !created {
		// A redelivery reports the row as it stands now; a failed read is not worth
		// failing the delivery over, the claim exists either way.
		if existing, err := h.Claims.Get(ctx, claim.TenantID, claim.ID); err == nil {
			status = existing.Status
		}
	}
	httpapi.WriteJSON(w, http.StatusAccepted, IngestResponse{ID: claim.ID, Status: status, Duplicate: !created})
}

// authenticate verifies the signature against the tenant's active secrets and returns the
// tenant's configuration with its flags current. An unknown or malformed tenant id has no
// keys and fails exactly like a wrong signature. When the configuration came from a cache
// and would refuse the request (signature or flags), it is read once more from the store,
// so a just-rotated secret or just-enabled flag is honoured at once.
func (h *Ingest) authenticate(ctx context.Context, tenantID string, sig webhook.Headers, body []byte) (tenant.Config, error) {
	if !tenant.ValidID(tenantID) {
		return tenant.Config{}, h.Verifier.Verify(sig, body, nil)
	}
	read := h.Tenants.Get
	for attempt := 0; ; attempt++ {
		cfg, err := read(ctx, tenantID)
		if err != nil && !errors.Is(err, tenant.ErrNotFound) {
			return tenant.Config{}, err
		}
		verr := h.Verifier.Verify(sig, body, cfg.ActiveKeys(h.now()))
		refresher, cached := h.Tenants.(tenantRefresher)
		if !cached || attempt == 1 || (verr == nil && cfg.FeatureEnabled()) {
			return cfg, verr
		}
		read = refresher.Refresh
	}
}

func (h *Ingest) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}
