package intake

import (
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// HeaderTenantID names the tenant a webhook is signed for.
const HeaderTenantID = hostauth.HeaderTenantID

// Ingest is the signed webhook: it authenticates the host ERP, claims the sync error with
// one conditional write and enqueues its diagnosis.
type Ingest struct {
	Auth   *hostauth.Authenticator[tenant.Config]
	Claims syncerror.ClaimStore
	Queue  syncerror.Queue
	// Mask applies the at-rest policy before the claim is written (nil: none).
	Mask *syncerror.Masker
	Now  func() time.Time
}

// IngestResponse is the 202 body.
type IngestResponse struct {
	ID        string           `json:"id"`
	Status    syncerror.Status `json:"status"`
	Duplicate bool             `json:"duplicate"`
}

func problem(status int, code, detail string) *httpapi.Problem {
	return httpapi.NewProblem(status, code, detail)
}

var errMalformed = problem(http.StatusBadRequest, "malformed_json", "The body is not a single JSON object.")

// errReplayed answers a webhook-id this tenant used before for another sync error, as the
// other signed routes answer one used for another message. The same id for the same
// errorId is a redelivery: 202 duplicate.
var errReplayed = problem(http.StatusConflict, "request_replayed",
	"This webhook-id was used by another message of this tenant (another errorId); nothing was stored. Each sync error has its own webhook-id; a redelivery keeps it.")

// ServeHTTP handles POST /api/sync-error-assist/ingest. The order is fixed: size and type,
// signature, tenant flags, validation, replay check, claim, enqueue. Nothing is stored or
// enqueued unless every check before the claim passed.
func (h *Ingest) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(p *httpapi.Problem) {
		cp := *p
		httpapi.WriteProblem(w, r, &cp)
	}
	cfg, body, ok := h.Auth.ReadSigned(w, r, syncerror.MaxBodyBytes, tenant.Config.FeatureEnabled)
	if !ok {
		return
	}
	if flag := cfg.DisabledFlag(); flag != "" {
		fail(problem(http.StatusForbidden, "feature_disabled",
			"Sync-error assistance is off for this tenant: "+flag+" is not 'true'."))
		return
	}
	ctx := r.Context()

	rec, err := syncerror.ParseRecord(body, cfg.ID)
	if err != nil {
		var ve *syncerror.ValidationError
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

	arrival := syncerror.WebhookArrival(rec.TenantID, rec.ErrorID, r.Header.Get(webhook.HeaderID))
	claim, res, sendErr, err := claimPath{h.Claims, h.Queue, h.Mask}.claim(ctx, rec, syncerror.SourceWebhook, arrival, h.now())
	if errors.Is(err, syncerror.ErrReplayed) {
		fail(errReplayed)
		return
	}
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The sync error could not be recorded; nothing was stored. Retry shortly.")
		return
	}
	if sendErr != nil {
		// The row stays queued; the reconcile re-enqueues it, so the host still gets 202
		// and nothing is lost.
		httpapi.Logger(ctx).Warn("diagnosis enqueue failed; the reconcile will re-enqueue",
			"tenant", claim.TenantID, "id", claim.ID, "error", sendErr)
	}
	outcome := map[syncerror.FoldResult]string{syncerror.FoldCreated: "accepted", syncerror.FoldOccurrence: "folded", syncerror.FoldDuplicate: "duplicate"}[res]
	emf.Emit(emf.Metric{Time: h.now(), Dimensions: []string{"outcome"}, Counts: map[string]float64{"SyncErrorsIngested": 1},
		Fields: map[string]any{"outcome": outcome, "tenant": claim.TenantID}})
	// The row as the fold left it: a folded occurrence or a redelivery reports the open
	// row's id and status.
	httpapi.WriteJSON(w, http.StatusAccepted, IngestResponse{ID: claim.ID, Status: claim.Status, Duplicate: res == syncerror.FoldDuplicate})
}

func (h *Ingest) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}
