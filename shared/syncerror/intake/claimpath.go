package intake

import (
	"context"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// claimPath is the one way a sync error becomes a claim, whichever way it arrived (the
// webhook, the reconcile's poll, a failed flow write): the at-rest mask, the conditional
// claim, then the diagnosis enqueue.
type claimPath struct {
	Claims syncerror.ClaimStore
	Queue  syncerror.Queue
	Mask   *syncerror.Masker
}

// claim stores rec as a claim, folded into its signature's open row (syncerror.Fold), and
// enqueues its diagnosis if the row is new. A failed send is returned as sendErr, not
// err: the row stays queued and the reconcile re-enqueues it, so the caller reports the
// claim as made.
func (p claimPath) claim(ctx context.Context, rec syncerror.Record, src syncerror.Source, d syncerror.Arrival, now time.Time) (c syncerror.Claim, res syncerror.FoldResult, sendErr, err error) {
	if rec, err = p.Mask.Store(rec); err != nil {
		return syncerror.Claim{}, 0, nil, err
	}
	if res, c, err = syncerror.Fold(ctx, p.Claims, syncerror.NewClaim(rec, src, d.WebhookID, now), d); err != nil || res != syncerror.FoldCreated {
		return c, res, nil, err
	}
	return c, res, p.Queue.Send(ctx, syncerror.Message{TenantID: c.TenantID, ID: c.ID}), nil
}

// Reporter claims sync errors the service finds itself, through the same path as the
// webhook's, so they are diagnosed and decided like any other.
type Reporter struct {
	Claims syncerror.ClaimStore
	Queue  syncerror.Queue
	Mask   *syncerror.Masker
	Now    func() time.Time
}

// Report validates rec, claims it with ref as the delivery (the flow run's id) and
// returns the claim's id. A record reported twice is claimed once (same errorId, same id).
func (r *Reporter) Report(ctx context.Context, rec syncerror.Record, src syncerror.Source, ref string) (string, error) {
	// The webhook's own validation, so a reported record is one the host could have sent.
	body, err := syncerror.MarshalRecord(rec)
	if err != nil {
		return "", err
	}
	if rec, err = syncerror.ParseRecord(body, rec.TenantID); err != nil {
		return "", err
	}
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	c, _, sendErr, err := claimPath{r.Claims, r.Queue, r.Mask}.claim(ctx, rec, src, syncerror.Arrival{WebhookID: ref}, now)
	if err != nil {
		return "", fmt.Errorf("claim sync error: %w", err)
	}
	_ = sendErr // the row is queued; the reconcile re-enqueues it
	return c.ID, nil
}
