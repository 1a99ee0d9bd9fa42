package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"

	"context"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// triageBody is POST …/proposals/{id}/triage: exactly one of assign, tag or note.
type triageBody struct {
	Assign *struct {
		To   *string `json:"to"`
		From *string `json:"from"`
	} `json:"assign"`
	Tag *struct {
		Add    string `json:"add"`
		Remove string `json:"remove"`
	} `json:"tag"`
	Note *string `json:"note"`
}

func (b triageBody) validate() []httpapi.FieldError {
	var errs []httpapi.FieldError
	add := func(f, m string) { errs = append(errs, httpapi.FieldError{Field: f, Message: m}) }
	n := 0
	for _, set := range []bool{b.Assign != nil, b.Tag != nil, b.Note != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		add("body", "must hold exactly one of assign, tag or note")
		return errs
	}
	switch {
	case b.Assign != nil:
		if b.Assign.To == nil || b.Assign.From == nil {
			add("assign", "needs to (\"\" unassigns) and from (the assignee you saw, \"\" for nobody)")
		}
		if v := b.Assign.To; v != nil && *v != "" && !syncerror.AssigneePattern.MatchString(*v) {
			add("assign.to", "must be a user id of 1 to 128 letters, digits or . _ @ : + | -")
		}
		if v := b.Assign.From; v != nil && *v != "" && !syncerror.AssigneePattern.MatchString(*v) && !queue.PlainText(*v, syncerror.MaxShownAssigneeLen) {
			add("assign.from", "must be the assignee as the row shows it: at most 256 characters, without control characters")
		}
	case b.Tag != nil:
		t := b.Tag.Add + b.Tag.Remove
		if (b.Tag.Add == "") == (b.Tag.Remove == "") {
			add("tag", "needs exactly one of add or remove")
		} else if !syncerror.TagPattern.MatchString(t) {
			add(map[bool]string{true: "tag.add", false: "tag.remove"}[b.Tag.Add != ""],
				"must be 1 to 32 lower-case letters, digits, - or _, starting with a letter or digit")
		}
	default:
		if l := utf8.RuneCountInString(strings.TrimSpace(*b.Note)); l == 0 || l > syncerror.MaxNoteLen {
			add("note", "is required, at most 2000 characters")
		}
	}
	return errs
}

// TriageHandler serves POST /api/sync-error-assist/proposals/{id}/triage: assign, tag or
// note a row in any status. Each change is audited; a note's text is masked under the DLP
// display policy before it is stored (secrets and customer data are never kept readable),
// and the answer says which kinds were masked.
func (o *Service) TriageHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok {
			return
		}
		var body triageBody
		if !syncerror.ReadStrictJSON(w, r, &body) {
			return
		}
		if errs := body.validate(); len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "", errs)
			return
		}
		id := r.PathValue("id")
		if !syncerror.ValidClaimID(id) {
			syncerror.NotFound(w, r)
			return
		}
		c, key, details, err := o.triage(r.Context(), actor.TenantID, actor.Actor, id, body)
		switch {
		case errors.Is(err, syncerror.ErrNotFound):
			syncerror.NotFound(w, r)
		case errors.Is(err, syncerror.ErrStateChanged):
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "assignee_changed",
				"Someone else changed who has this sync error; reload it and try again."))
		case errors.Is(err, syncerror.ErrTriageFull):
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "triage_full",
				"This sync error already has 10 tags or 50 notes; remove a tag or resolve it first."))
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
		default:
			o.WriteAudit(r.Context(), actor, key, audit.ResultSuccess, "syncerror/"+id, details)
			d := o.Detail(r.Context(), c)
			o.Annotate(r.Context(), actor.TenantID, []*queue.Summary{&d.Summary}, []syncerror.Claim{c})
			httpapi.WriteJSON(w, http.StatusOK, d)
		}
	})
}

// triage makes the one change body asks for and returns the row, the audit action key and
// the audit details (never a note's text, which the row keeps).
func (o *Service) triage(ctx context.Context, tenantID, actor, id string, b triageBody) (syncerror.Claim, string, map[string]any, error) {
	now := o.NowUTC()
	entry := syncerror.HistoryEntry{At: now, Actor: actor}
	switch {
	case b.Assign != nil:
		to, from := *b.Assign.To, o.assignedFrom(ctx, tenantID, id, *b.Assign.From)
		if to == "me" {
			to = actor
		}
		entry.Action, entry.Note = "assigned", to
		if to == "" {
			entry.Action, entry.Note = "unassigned", from
		}
		c, err := o.Claims.Assign(ctx, tenantID, id, from, to, entry, now)
		return c, "syncerror.assign", map[string]any{"from": from, "to": to}, err
	case b.Tag != nil:
		tag, on := b.Tag.Add, true
		if tag == "" {
			tag, on = b.Tag.Remove, false
		}
		entry.Action, entry.Note = map[bool]string{true: "tagged", false: "untagged"}[on], tag
		c, err := o.Claims.Tag(ctx, tenantID, id, tag, on, entry, now)
		return c, "syncerror.tag", map[string]any{"tag": tag, "added": on}, err
	default:
		text, masked, err := o.Mask.MaskNote(strings.TrimSpace(*b.Note))
		if err != nil {
			return syncerror.Claim{}, "", nil, err
		}
		entry.Action = "noted"
		c, err := o.Claims.AddNote(ctx, tenantID, id, syncerror.Note{At: now, Actor: actor, Text: text}, entry, now)
		return c, "syncerror.note", map[string]any{"length": utf8.RuneCountInString(text), "masked": masked}, err
	}
}

// assignedFrom is the stored assignee that from (the assignee as the caller saw the row,
// people.go) names: the row's assignee when from is it or how the row shows it, else from
// itself, which the conditional write then finds changed. Without a pseudonym key two
// people masked alike show alike, so from names either: the assignment still cannot
// overwrite a change made after the row was read here.
func (o *Service) assignedFrom(ctx context.Context, tenantID, id, from string) string {
	if from == "" {
		return ""
	}
	c, err := o.Claims.Get(ctx, tenantID, id)
	if err != nil || c.Triage.Assignee == "" {
		return from
	}
	if cur := c.Triage.Assignee; from == cur || from == o.ShownActor(ctx, cur) {
		return cur
	}
	return from
}
