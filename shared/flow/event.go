package flow

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// Event is a source system's change of one record.
type Event struct {
	EventID   string         `json:"eventId"`
	Entity    string         `json:"entity"`
	RecordID  string         `json:"recordId"`
	ChangedAt time.Time      `json:"changedAt"`
	Fields    map[string]any `json:"fields"`
}

// MaxEventBytes bounds a change event's body.
const MaxEventBytes = 256 << 10

// ParseEvent decodes and validates an event body: one JSON object, numbers kept as sent.
// It returns ok false for a body that is not a JSON object, else the field errors.
func ParseEvent(body []byte) (ev Event, errs []httpapi.FieldError, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw struct {
		EventID   *string        `json:"eventId"`
		Entity    *string        `json:"entity"`
		RecordID  *string        `json:"recordId"`
		ChangedAt *string        `json:"changedAt"`
		Fields    map[string]any `json:"fields"`
	}
	if err := dec.Decode(&raw); err != nil {
		return Event{}, nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return Event{}, nil, false
	}
	add := func(field, msg string) { errs = append(errs, httpapi.FieldError{Field: field, Message: msg}) }
	text := func(name string, v *string, dst *string) {
		switch {
		case v == nil || *v == "":
			add(name, "is required")
		case len(*v) > 256:
			add(name, "must be at most 256 characters")
		case !visible(*v):
			add(name, "must not contain spaces or control characters")
		default:
			*dst = *v
		}
	}
	text("eventId", raw.EventID, &ev.EventID)
	if strings.HasPrefix(ev.EventID, PollEventPrefix) {
		// A pushed id in the poller's space could claim a change before the poll reads it.
		add("eventId", "must not start with \""+PollEventPrefix+"\": those ids are the poller's")
		ev.EventID = ""
	}
	text("entity", raw.Entity, &ev.Entity)
	text("recordId", raw.RecordID, &ev.RecordID)
	if raw.ChangedAt == nil {
		add("changedAt", "is required")
	} else if t, err := httpapi.ParseTime(*raw.ChangedAt); err != nil {
		add("changedAt", "must be an RFC 3339 date-time such as 2026-11-22T09:30:00Z")
	} else {
		ev.ChangedAt = t.UTC()
	}
	if len(raw.Fields) == 0 {
		add("fields", "must be an object with at least one field")
	}
	ev.Fields = raw.Fields
	return ev, errs, true
}
