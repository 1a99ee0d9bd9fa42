package syncerror

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"time"
)

// Triage limits: a row's item stays far under DynamoDB's 400 KB with every note full.
const (
	MaxTags        = 10
	MaxNotes       = 50
	MaxNoteLen     = 2000
	MaxAssigneeLen = 128
	// MaxShownAssigneeLen bounds assign.from, the assignee as a row shows it (queue/queue/people.go):
	// a masked name and its pseudonym.
	MaxShownAssigneeLen = 256
)

// TagPattern and AssigneePattern are what a tag and an assignee may be.
var (
	TagPattern      = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	AssigneePattern = regexp.MustCompile(`^[A-Za-z0-9._@:+|-]{1,128}$`)
)

// Triage is how a team works a row beside its decision: who has it, its labels and the
// notes left on it. None of it changes what is written to an ERP.
type Triage struct {
	// Assignee is the actor who took the row ("" nobody).
	Assignee string
	// Tags are the row's labels, sorted and distinct.
	Tags []string
	// Notes are kept oldest first; their text was masked before it was stored.
	Notes []Note
}

// Note is a remark left on a row.
type Note struct {
	At    time.Time `json:"at"`
	Actor string    `json:"actor"`
	Text  string    `json:"text"`
	// You marks, in an answer only, the viewer's own note (queue/people.go); never stored.
	You bool `json:"you,omitempty"`
}

// ErrTriageFull is returned when a row already holds MaxTags tags or MaxNotes notes.
var ErrTriageFull = errors.New("the row holds as many tags or notes as it may")

// TriageStore changes a row's triage; each change is one conditional write with a history
// entry. ErrNotFound for an unknown row.
type TriageStore interface {
	// Assign sets the assignee to to ("" unassigns) if it is still from ("" nobody), so two
	// operators taking the same row cannot overwrite each other: ErrStateChanged otherwise.
	Assign(ctx context.Context, tenantID, id, from, to string, entry HistoryEntry, now time.Time) (Claim, error)
	// Tag adds (on) or removes a tag; adding a tag the row has is a no-op. ErrTriageFull
	// when adding a new tag to a row with MaxTags.
	Tag(ctx context.Context, tenantID, id, tag string, on bool, entry HistoryEntry, now time.Time) (Claim, error)
	// AddNote appends n. ErrTriageFull when the row holds MaxNotes notes.
	AddNote(ctx context.Context, tenantID, id string, n Note, entry HistoryEntry, now time.Time) (Claim, error)
}

// TriageView is a row's triage as the API shows it.
type TriageView struct {
	// Assignee is shown as the audit log shows people (queue/people.go); AssignedToYou says the
	// viewer has the row.
	Assignee      string   `json:"assignee,omitempty"`
	AssignedToYou bool     `json:"assignedToYou,omitempty"`
	Tags          []string `json:"tags,omitempty"`
}

func TriageViewOf(t Triage) TriageView {
	return TriageView{Assignee: t.Assignee, Tags: slices.Clone(t.Tags)}
}
