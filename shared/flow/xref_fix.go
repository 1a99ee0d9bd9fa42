package flow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// An admin's fix-up of the cross-reference: link a source record to a target record the
// flows did not match, re-link it to another, or unlink it. The admin says what they saw
// (Expect: none, or the linked target id), and every change is a conditional write on
// the entry as it was read, so the fix-up cannot race a running flow into two links:
//   - a run that claimed the entry holds it pending, and a fix-up of a pending entry is
//     refused (the run's own link decides; the admin looks again);
//   - a fix-up that lands first leaves a linked entry, which a run then reads and updates
//     (ClaimXRef refuses a second entry);
//   - two fix-ups of one entry: the second's condition fails and it is refused.
//
// The reverse entries follow in the same order LinkXRef keeps: the new reverse is put
// before the forward entry points to it, and the old reverse is deleted only after the
// forward entry no longer does (each conditional on pointing at this source record), so a
// linked entry always has its reverse.

// XRefFix is the body of a fix-up.
type XRefFix struct {
	Source Ref `json:"source"`
	// Target is the counterpart; its ID empty unlinks.
	Target Ref `json:"target"`
	// Expect is what the admin saw: "" for no link, else the linked target id.
	Expect string `json:"expect"`
	// Settle, when set, settles a claim marked Creating instead (xref_settle.go):
	// SettleCreated links it to Target.ID, SettleNotCreated drops it (Target.ID empty).
	Settle string `json:"settle,omitempty"`

	// sent are the members decoding found, where absent and "" differ: an absent target id
	// would read as an unlink, and an empty settle as none.
	sent struct{ targetID, settle bool }
}

// UnmarshalJSON decodes strictly (as decodeStrict, which a custom decoder bypasses) and
// notes which of target.id and settle were sent.
func (fx *XRefFix) UnmarshalJSON(b []byte) error {
	type plain XRefFix
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(fx)); err != nil {
		return err
	}
	var members struct {
		Target map[string]json.RawMessage `json:"target"`
		Settle json.RawMessage            `json:"settle"`
	}
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	_, fx.sent.targetID = members.Target["id"]
	fx.sent.settle = members.Settle != nil
	return nil
}

// Fix-up failures.
var (
	// ErrXRefChanged: the entry is not what the admin saw (a run or another fix-up changed
	// it, or a run is finding the counterpart now).
	ErrXRefChanged = errors.New("the cross-reference entry changed")
	// ErrTargetLinked: the target record is linked to another source record already.
	ErrTargetLinked = errors.New("the target record is linked to another record")
)

// FixXRef applies a fix-up and returns the entry after it (zero after an unlink).
func (s *Service) FixXRef(ctx context.Context, tenantID, actor string, fx XRefFix) (XRef, error) {
	if fx.Settle != "" {
		return s.settleCreating(ctx, tenantID, actor, fx)
	}
	st := s.Exec.XRefs
	target := fx.Target.endpoint()
	prev, err := st.XRef(ctx, tenantID, fx.Source, target)
	switch {
	case errors.Is(err, ErrNotFound):
		if fx.Expect != "" {
			return XRef{}, fmt.Errorf("%w: it is not linked", ErrXRefChanged)
		}
	case err != nil:
		return XRef{}, err
	case prev.Creating:
		return XRef{}, fmt.Errorf("%w: run %s sent a create of the counterpart and has not linked it; settle it (created, with the record's id, or not_created)",
			ErrXRefChanged, prev.ClaimedBy)
	case prev.State != XRefLinked:
		return XRef{}, fmt.Errorf("%w: run %s is finding or creating the counterpart now", ErrXRefChanged, prev.ClaimedBy)
	case prev.Target.ID != fx.Expect:
		return XRef{}, fmt.Errorf("%w: it is linked to %s", ErrXRefChanged, prev.Target.ID)
	}
	var before *XRef
	if err == nil {
		before = &prev
	}
	if fx.Target.ID == "" {
		if before == nil {
			return XRef{}, nil
		}
		if err := st.SwapXRef(ctx, tenantID, before, nil); err != nil {
			return XRef{}, changed(err)
		}
		s.dropReverse(ctx, tenantID, prev)
		return XRef{}, nil
	}
	now := s.now()
	next := XRef{Source: fx.Source, Target: fx.Target, State: XRefLinked, Anchor: fx.Source.ID, Action: ActionLinkedByAdmin,
		LinkedBy: "admin:" + actor, CreatedAt: now, UpdatedAt: now}
	if before != nil {
		next.Anchor, next.CreatedAt, next.FlowID = prev.Anchor, prev.CreatedAt, prev.FlowID
	}
	if err := s.putReverse(ctx, tenantID, next); err != nil {
		return XRef{}, err
	}
	if err := st.SwapXRef(ctx, tenantID, before, &next); err != nil {
		s.dropReverse(ctx, tenantID, next)
		return XRef{}, changed(err)
	}
	if before != nil && prev.Target.ID != next.Target.ID {
		s.dropReverse(ctx, tenantID, prev)
	}
	return next, nil
}

// ActionLinkedByAdmin is the Action of an entry an admin linked.
const ActionLinkedByAdmin = "linked_by_admin"

func changed(err error) error {
	if errors.Is(err, ErrTaken) {
		return fmt.Errorf("%w while it was being fixed", ErrXRefChanged)
	}
	return err
}

// putReverse stores next's reverse entry unless the target record already has one: its
// own (kept) or another record's (refused).
func (s *Service) putReverse(ctx context.Context, tenantID string, next XRef) error {
	rev := next.reverse()
	have, err := s.Exec.XRefs.XRef(ctx, tenantID, rev.Source, rev.Target.endpoint())
	switch {
	case errors.Is(err, ErrNotFound):
		if err := s.Exec.XRefs.SwapXRef(ctx, tenantID, nil, &rev); err != nil {
			return changed(err)
		}
		return nil
	case err != nil:
		return err
	case have.State == XRefLinked && have.Target.ID == next.Source.ID:
		return nil
	case have.State == XRefLinked:
		return fmt.Errorf("%w: %s", ErrTargetLinked, have.Target.ID)
	}
	return fmt.Errorf("%w: run %s is linking the target record now", ErrXRefChanged, have.ClaimedBy)
}

// dropReverse deletes e's reverse entry if it still points at e's source record. What it
// cannot delete stays as a stale reverse pointer; runs of the other direction then
// update the old counterpart's source, which an admin sees in the cross-reference.
func (s *Service) dropReverse(ctx context.Context, tenantID string, e XRef) {
	rev := e.reverse()
	have, err := s.Exec.XRefs.XRef(ctx, tenantID, rev.Source, rev.Target.endpoint())
	if err != nil || have.State != XRefLinked || have.Target.ID != e.Source.ID {
		return
	}
	_ = s.Exec.XRefs.SwapXRef(ctx, tenantID, &have, nil)
}

// validate lists the problems of a fix-up by JSON field path.
func (fx XRefFix) validate() []httpapi.FieldError {
	var errs []httpapi.FieldError
	add := func(field, msg string) { errs = append(errs, httpapi.FieldError{Field: field, Message: msg}) }
	for _, side := range []struct {
		name string
		r    Ref
	}{{"source", fx.Source}, {"target", fx.Target}} {
		if !side.r.System.Known() {
			add(side.name+".system", "must be one of "+connector.SystemNames())
		}
		if !validName(side.r.Entity) {
			add(side.name+".entity", "must be 1 to 128 visible characters")
		}
		if (side.r.ID != "" || side.name == "source") && !validRecordID(side.r.ID) {
			add(side.name+".id", "must be 1 to 256 characters without control characters")
		}
	}
	if !fx.sent.targetID {
		add("target.id", `is required: the counterpart's id, or "" to unlink`)
	}
	if fx.Source.endpoint() == fx.Target.endpoint() {
		add("target", "must be another system or entity than the source")
	}
	if fx.Expect != "" && !validRecordID(fx.Expect) {
		add("expect", "must be empty or a record id")
	}
	switch fx.Settle {
	case "":
		if fx.sent.settle {
			add("settle", "must be created or not_created; leave it out to link or unlink")
		}
	case SettleCreated, SettleNotCreated:
		if fx.Expect != "" {
			add("expect", "must be empty with settle: a create being settled is not linked")
		}
		if (fx.Settle == SettleCreated) != (fx.Target.ID != "") {
			add("target.id", "must be the created record's id with settle created, and empty with not_created")
		}
	default:
		add("settle", "must be empty, created or not_created")
	}
	return errs
}

func validRecordID(id string) bool {
	return id != "" && len(id) <= 256 && !strings.ContainsFunc(id, func(c rune) bool { return c < 0x20 || c == 0x7f })
}
