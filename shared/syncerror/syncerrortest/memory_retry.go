package syncerrortest

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// ChangeRetry implements syncerror.RetryStore.
func (s *ClaimStore) ChangeRetry(_ context.Context, tenantID, id string, ch syncerror.RetryChange, now time.Time) (syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.Claim{}, syncerror.ErrNotFound
	}
	if !slices.Contains(ch.From, c.Status) || !ch.AnyAttempts && c.Retry.Attempts != ch.Attempts || syncerror.Reopens(ch.To) && c.Applied != nil ||
		ch.Idle && !c.Retry.HeldUntil.IsZero() && !c.Retry.HeldUntil.Before(now) {
		return syncerror.Claim{}, syncerror.ErrStateChanged
	}
	c.Status = ch.To
	c.Retry.HeldUntil = time.Time{}
	if ch.Begin {
		c.Retry.Attempts++
		c.Retry.HeldUntil = ch.NextAt.UTC()
	}
	c.Retry.NextAt = ch.NextAt.UTC()
	if ch.NextAt.IsZero() {
		c.Retry.NextAt = time.Time{}
	}
	c.Retry.LastError = ch.LastError
	if ch.Resolution != "" {
		c.Retry.Resolution = ch.Resolution
	}
	if ch.Log != nil {
		c.Retry.Log = slices.Clone(ch.Log)
	}
	c.History = append(append([]syncerror.HistoryEntry(nil), c.History...), ch.Entry)
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return clone(c), nil
}

// DueRetries implements syncerror.RetryStore.
func (s *ClaimStore) DueRetries(_ context.Context, tenantID string, before time.Time, limit int) ([]syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []syncerror.Claim
	for _, c := range s.rows {
		if c.TenantID == tenantID && c.Status == syncerror.StatusRetrying && !c.Retry.NextAt.After(before) {
			out = append(out, clone(c))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Retry.NextAt.Equal(out[j].Retry.NextAt) {
			return out[i].Retry.NextAt.Before(out[j].Retry.NextAt)
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// SignatureState implements syncerror.FoldStore.
func (s *ClaimStore) SignatureState(_ context.Context, tenantID, signature string) (syncerror.SignatureState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.signatures[key(tenantID, signature)]
	st.ClosedKeys = append([]string(nil), st.ClosedKeys...)
	return st, nil
}

// AdvanceSignature implements syncerror.FoldStore.
func (s *ClaimStore) AdvanceSignature(_ context.Context, tenantID, signature string, gen int, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, signature)
	if s.signatures[k].Generation != gen {
		return syncerror.ErrStateChanged
	}
	s.signatures[k] = syncerror.SignatureState{Generation: gen + 1, ClosedKeys: append([]string(nil), keys...)}
	return nil
}

// Fold implements syncerror.FoldStore: a row past its key bound keeps the last key of
// each slot (syncerror.RecentKeySlot), as the DynamoDB store does (which this fake's
// rows, never deleted, do not show made again under the same id).
func (s *ClaimStore) Fold(_ context.Context, c syncerror.Claim, errorKey string) (syncerror.FoldResult, syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(c.TenantID, c.ID)
	slot := key(c.TenantID, c.ID+"#"+strconv.Itoa(syncerror.RecentKeySlot(errorKey)))
	row, ok := s.rows[k]
	switch {
	case !ok:
		s.rows[k] = clone(c)
		return syncerror.FoldCreated, clone(c), nil
	case slices.Contains(row.Retry.ErrorKeys, errorKey) || s.recent[slot] == errorKey:
		return syncerror.FoldDuplicate, clone(row), nil
	case row.Status.Closed():
		return syncerror.FoldClosed, clone(row), nil
	}
	row.Retry.Occurrences++
	row.Retry.LastSeen = c.ClaimedAt.UTC()
	if row.Retry.Occurrences <= syncerror.MaxErrorKeys {
		row.Retry.ErrorKeys = append(append([]string(nil), row.Retry.ErrorKeys...), errorKey)
	} else {
		s.recent[slot] = errorKey
	}
	s.rows[k] = row
	return syncerror.FoldOccurrence, clone(row), nil
}

// ClaimErrorKey implements syncerror.FoldStore.
func (s *ClaimStore) ClaimErrorKey(_ context.Context, tenantID, errorKey, signature string) (syncerror.ErrorRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, errorKey)
	if v, ok := s.errorRows[k]; ok {
		sig, mark, _ := strings.Cut(v, "\x00")
		row, at, _ := strings.Cut(mark, "\x00")
		rec := syncerror.ErrorRecord{Signature: sig, RowID: row}
		if ns, err := strconv.ParseInt(at, 10, 64); err == nil {
			rec.RowClaimedAt = time.Unix(0, ns).UTC()
		}
		return rec, false, nil
	}
	s.errorRows[k] = signature
	return syncerror.ErrorRecord{Signature: signature}, true, nil
}

// MarkErrorKey implements syncerror.FoldStore, keeping the row and its claim time after
// the signature ("signature\x00row\x00unix nanoseconds").
func (s *ClaimStore) MarkErrorKey(_ context.Context, tenantID, errorKey, rowID string, rowClaimedAt time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, errorKey)
	v, ok := s.errorRows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	sig, _, _ := strings.Cut(v, "\x00")
	at := ""
	if !rowClaimedAt.IsZero() { // UnixNano of the zero time is not defined
		at = strconv.FormatInt(rowClaimedAt.UnixNano(), 10)
	}
	s.errorRows[k] = sig + "\x00" + rowID + "\x00" + at
	return nil
}

// webhookKey keeps the webhook-ids apart from the error keys in errorRows, where each is
// kept as "message\x00expiry (unix seconds)".
const webhookKey = "~whid#"

// RecordWebhookID implements syncerror.FoldStore.
func (s *ClaimStore) RecordWebhookID(_ context.Context, tenantID string, d syncerror.Arrival, now time.Time) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, webhookKey+d.WebhookID)
	if v, ok := s.errorRows[k]; ok {
		msg, exp, _ := strings.Cut(v, "\x00")
		if t, _ := strconv.ParseInt(exp, 10, 64); t >= now.Unix() {
			return msg, false, nil
		}
	}
	s.errorRows[k] = d.Message + "\x00" + strconv.FormatInt(now.Add(syncerror.WebhookIDTTL).Unix(), 10)
	return d.Message, true, nil
}
