package syncerror

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// SourceFlow marks a claim made for a flow run whose target write failed for good: the
// platform's own failed syncs are triaged like the host ERP's.
const SourceFlow Source = "flow"

// claimPath is the one way a sync error becomes a claim, whichever way it arrived (the
// webhook, the reconcile's poll, a failed flow write): the at-rest mask, the conditional
// claim, then the diagnosis enqueue.
type claimPath struct {
	Claims ClaimStore
	Queue  Queue
	Mask   *Masker
}

// claim stores rec as a claim, folded into its signature's open row (fold.go), and
// enqueues its diagnosis if the row is new. A failed send is returned as sendErr, not
// err: the row stays queued and the reconcile re-enqueues it, so the caller reports the
// claim as made.
func (p claimPath) claim(ctx context.Context, rec Record, src Source, d Arrival, now time.Time) (c Claim, res FoldResult, sendErr, err error) {
	if rec, err = p.Mask.Store(rec); err != nil {
		return Claim{}, 0, nil, err
	}
	if res, c, err = fold(ctx, p.Claims, NewClaim(rec, src, d.WebhookID, now), d); err != nil || res != FoldCreated {
		return c, res, nil, err
	}
	return c, res, p.Queue.Send(ctx, Message{TenantID: c.TenantID, ID: c.ID}), nil
}

// Reporter claims sync errors the service finds itself, through the same path as the
// webhook's, so they are diagnosed and decided like any other.
type Reporter struct {
	Claims ClaimStore
	Queue  Queue
	Mask   *Masker
	Now    func() time.Time
}

// Report validates rec, claims it with ref as the delivery (the flow run's id) and
// returns the claim's id. A record reported twice is claimed once (same errorId, same id).
func (r *Reporter) Report(ctx context.Context, rec Record, src Source, ref string) (string, error) {
	// The webhook's own validation, so a reported record is one the host could have sent.
	body, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	if rec, err = ParseRecord(body, rec.TenantID); err != nil {
		return "", err
	}
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	c, _, sendErr, err := claimPath{r.Claims, r.Queue, r.Mask}.claim(ctx, rec, src, Arrival{WebhookID: ref}, now)
	if err != nil {
		return "", fmt.Errorf("claim sync error: %w", err)
	}
	_ = sendErr // the row is queued; the reconcile re-enqueues it
	return c.ID, nil
}
