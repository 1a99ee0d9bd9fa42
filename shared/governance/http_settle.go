package governance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Settling an unsettled approval by an approver's word.
//
// An unsettled approval (http_release.go) holds a write that may or may not be in the
// target's record. Sending it again settles an update (the connector finds it in place),
// but not everything can be settled that way: a create sent again is a second record, and
// a target that now refuses every attempt (the record deleted, the integration user's
// rights taken, the connector removed) would leave it unsettled for good, neither
// approvable nor deniable. So an approver who checked the record says what it holds, on
// the approve: {"settle":"written"} ends it approved, with the write's ledger entry
// recorded as if its answer had come (a loop check and a sync error's reconcile find it
// under its idempotency key); {"settle":"not_written"} makes it pending again, to be
// approved (sent as a new release) or denied. Both are audited as governance.settle with
// the approver's word, and four eyes applies as to any approve.

// Settle outcomes an approver may state.
const (
	SettleWritten    = "written"
	SettleNotWritten = "not_written"
)

// maxSettleBody bounds an approve's body: a settle word and a record id.
const maxSettleBody = 4 << 10

// settleBody is an approve's optional body. RecordID names the record a create made
// (required with written for a create: its ledger entry is keyed by it).
type settleBody struct {
	Settle   string `json:"settle"`
	RecordID string `json:"recordId"`
}

// readSettleBody reads an approve's body: none (a release), or a settle. It answers 400
// itself for anything else, so a misspelt settle is never taken for a release.
func readSettleBody(w http.ResponseWriter, r *http.Request) (settleBody, bool) {
	var b settleBody
	if r.Body == nil {
		return b, true
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSettleBody))
	bad := func(detail string) (settleBody, bool) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, CodeInvalidBody, detail))
		return settleBody{}, false
	}
	if err != nil {
		return bad("The body could not be read, or is larger than 4 KiB.")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return b, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return bad(`The body must be empty (release the write) or {"settle":"written"|"not_written","recordId":"…"}.`)
	}
	// "" is no settle word nor record id, yet sent either says the body settles
	// something: refused, not taken for {} and a release.
	var sent struct {
		Settle   *string `json:"settle"`
		RecordID *string `json:"recordId"`
	}
	_ = json.Unmarshal(raw, &sent)
	switch {
	case sent.Settle != nil && *sent.Settle == "":
		return bad(`settle must be "written" or "not_written".`)
	case sent.RecordID != nil && *sent.RecordID == "":
		return bad("recordId must be 1 to 255 visible ASCII characters.")
	case b == settleBody{}:
		return b, true // {} is no settle: the console's approve sends it
	case b.Settle != SettleWritten && b.Settle != SettleNotWritten:
		return bad(`settle must be "written" or "not_written".`)
	case b.RecordID != "" && b.Settle != SettleWritten:
		return bad("recordId names the record a create made; it goes with written only.")
	case len(b.RecordID) > 255 || strings.ContainsFunc(b.RecordID, func(c rune) bool { return c <= ' ' || c > '~' }):
		return bad("recordId must be 1 to 255 visible ASCII characters.")
	}
	return b, true
}

// settle records an approver's word on the unsettled approval cur (http_settle.go's
// comment): approved with its ledger entry, or pending again.
func (s *Service) settle(w http.ResponseWriter, r *http.Request, id identity.Identity, cur PendingApproval, b settleBody) {
	ctx := r.Context()
	if cur.Status != StatusUnsettled {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, CodeNotUnsettled,
			"Only an unsettled approval is settled by saying whether its write was made; this one is "+string(cur.Status)+"."))
		return
	}
	written := b.Settle == SettleWritten
	if written && cur.Request.Create && b.RecordID == "" {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, CodeInvalidBody,
			"The held write is a create: say which record it made (recordId), as "+string(cur.Target)+" names it."))
		return
	}
	if written && !cur.Request.Create && b.RecordID != "" && b.RecordID != cur.Request.RecordID {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, CodeInvalidBody,
			"recordId names the record a create made; this write updates a record of its own."))
		return
	}
	to, by, at := StatusPending, "", time.Time{}
	if written {
		to, by, at = StatusApproved, id.Actor, s.now()
	}
	done, err := s.Records.DecideApproval(ctx, id.TenantID, cur.ID, StatusUnsettled, to, by, at)
	if err != nil {
		writeDecisionError(w, r, err)
		return
	}
	details := map[string]any{"settle": b.Settle, "written": written}
	item := approvalItem(done)
	if written {
		// Recorded after the decision: a ledger entry for a write another approver just
		// said was not made would mislead the loop check. One that fails is logged and
		// audited; the approval stays approved, as after a release not fully recorded.
		if err := s.Guard.recordSettled(context.WithoutCancel(ctx), id, done, b.RecordID); err != nil {
			httpapi.Logger(ctx).Error("settled write not recorded in the ledger", "approvalId", done.ID, "error", err)
			details["notRecorded"] = true
		}
		item.Message = "Settled as written: the approval is approved and nothing was sent; the write is recorded as made."
	} else {
		item.Message = "Settled as not written: the approval is pending again. Approve it to send the write, or deny it."
	}
	s.auditDecision(ctx, id, ActionSettle, audit.ResultSuccess, done, details)
	httpapi.WriteJSON(w, http.StatusOK, item)
}

// recordSettled stores the ledger entry, trail and connector.write audit record of a held
// write an approver settled as written (http_settle.go), as its release would have after
// an answer: nothing is sent. recordID names the record a create made. The entry carries
// the held fields (a release can write fewer, its hop or flapping checks dropping some;
// the approver vouched for the write as held) and is marked settledByApprover.
func (g *Guard) recordSettled(ctx context.Context, id identity.Identity, a PendingApproval, recordID string) error {
	if a.Tenant != id.TenantID {
		return errors.New("governance: approval of another tenant")
	}
	req := a.Request
	op := g.newOp(ctx, id, req, &a)
	op.settled = true
	defer op.flushAudit()
	hashed := req.Fields
	if req.Link != nil && req.Link.Key != "" {
		hashed = req.Link.Fields // as checkAndWrite hashes a linked write
	}
	hash, err := PayloadHash(hashed)
	if err != nil {
		return err
	}
	if recordID == "" {
		recordID = req.RecordID
	}
	out := connector.WriteResult{Record: connector.Record{Entity: req.Entity, ID: recordID}, Created: req.Create}
	return errors.Join(op.record(req.Fields, hash, out)...)
}
