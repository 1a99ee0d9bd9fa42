package flow

import (
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/jsonvalue"
)

// Endpoint is one side of a flow: a system and one of its entities.
type Endpoint struct {
	System connector.System `json:"system"`
	Entity string           `json:"entity"`
}

func (e Endpoint) String() string { return string(e.System) + "/" + e.Entity }

// Trigger is how a flow learns of its source's changes.
type Trigger string

const (
	// TriggerEvent: the source system posts change events (POST /api/flows/events/{system}).
	TriggerEvent Trigger = "event"
	// TriggerPoll: the source cannot push; the poll reads its changed records on the
	// reconcile schedule (see Poller).
	TriggerPoll Trigger = "poll"
)

// Flow carries changes of Source records to Target records.
type Flow struct {
	ID      string   `json:"id"`
	Enabled bool     `json:"enabled"`
	Source  Endpoint `json:"source"`
	Target  Endpoint `json:"target"`
	// Trigger is event (the default when empty) or poll. A flow runs only for changes
	// its own trigger delivers, so a source that both pushes and is polled does not run a
	// flow twice for one change.
	Trigger Trigger `json:"trigger"`
	// Mapping is target field → source field, the shape field_mapping_suggest answers in
	// (targetField, sourceField), so a reviewed suggestion is a mapping as it stands.
	Mapping map[string]string `json:"mapping"`
	// Filter holds source fields and the values they must have (JSON equality, numbers by
	// value: a filter of 1.50 holds for 1.5) for the flow to run; a filtered field absent
	// from the event does not hold.
	Filter map[string]any `json:"filter,omitempty"`
	// Match, when set, finds the target record through the cross-reference, the vendor's
	// external id or a lookup, and may create it (see match.go and xref.go).
	Match     *Match    `json:"match,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
	UpdatedBy string    `json:"updatedBy,omitempty"`
}

// Limits of a flow definition.
const (
	MaxMappedFields = 100
	MaxFlows        = 100
	maxNameLen      = 128
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidID reports whether id can name a flow.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Validate lists every problem of f at once, by JSON field path.
func (f Flow) Validate() []httpapi.FieldError {
	var errs []httpapi.FieldError
	add := func(field, msg string) { errs = append(errs, httpapi.FieldError{Field: field, Message: msg}) }
	if !ValidID(f.ID) {
		add("id", "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit")
	}
	for name, e := range map[string]Endpoint{"source": f.Source, "target": f.Target} {
		if !e.System.Known() {
			add(name+".system", "must be one of "+connector.SystemNames())
		}
		if !validName(e.Entity) {
			add(name+".entity", "must be 1 to 128 visible characters")
		}
	}
	if f.Trigger != "" && f.Trigger != TriggerEvent && f.Trigger != TriggerPoll {
		add("trigger", "must be event or poll")
	}
	if f.Source == f.Target {
		add("target", "must differ from the source")
	}
	switch {
	case len(f.Mapping) == 0:
		add("mapping", "must map at least one field")
	case len(f.Mapping) > MaxMappedFields:
		add("mapping", "must map at most 100 fields")
	}
	for _, target := range slices.Sorted(maps.Keys(f.Mapping)) {
		if !validName(target) || !validName(f.Mapping[target]) {
			add("mapping."+target, "field names must be 1 to 128 visible characters")
		}
	}
	for _, field := range slices.Sorted(maps.Keys(f.Filter)) {
		if !validName(field) {
			add("filter."+field, "field names must be 1 to 128 visible characters")
		}
	}
	errs = append(errs, f.validateMatch()...)
	slices.SortFunc(errs, func(a, b httpapi.FieldError) int { return strings.Compare(a.Field, b.Field) })
	return errs
}

func validName(s string) bool { return s != "" && len(s) <= maxNameLen && visible(s) }

// visible reports whether s has no spaces or control characters.
func visible(s string) bool {
	for _, c := range s {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// TriggerOrDefault is the flow's trigger, event when none is set.
func (f Flow) TriggerOrDefault() Trigger {
	if f.Trigger == "" {
		return TriggerEvent
	}
	return f.Trigger
}

// runsFor reports whether f runs for ev from system, delivered by trigger, and why not
// when it does not.
func (f Flow) runsFor(system connector.System, ev Event, trigger Trigger) (ok bool, skip string) {
	if !f.Enabled || f.Source.System != system || f.Source.Entity != ev.Entity || f.TriggerOrDefault() != trigger {
		return false, ""
	}
	for _, field := range slices.Sorted(maps.Keys(f.Filter)) {
		got, present := ev.Fields[field]
		// By value: an admin's 1.50 is the source's 1.5 ("1" is still not 1).
		if !present || !jsonvalue.Same(got, f.Filter[field]) {
			return true, "filter on " + field + " does not hold"
		}
	}
	return true, ""
}

// mapped returns the target fields the event carries values for, and the same values
// under names both directions of a flow pair share (see link).
func (f Flow) mapped(ev Event) (fields, shared map[string]any) {
	fields, shared = map[string]any{}, map[string]any{}
	for target, source := range f.Mapping {
		v, ok := ev.Fields[source]
		if !ok {
			continue
		}
		fields[target] = v
		shared[pairName(Endpoint{f.Source.System, source}, Endpoint{f.Target.System, target})] = v
	}
	return fields, shared
}

// echoable keeps of shared the pairs that a flow of flows carrying records back (target
// to source) maps too: only those can come back as an echo, and comparing only them lets
// the loop check see an echo that carries fewer fields than the write it answers.
func (f Flow) echoable(shared map[string]any, flows []Flow) map[string]any {
	back := map[string]bool{}
	for _, g := range flows {
		if g.Source != f.Target || g.Target != f.Source {
			continue
		}
		for target, source := range g.Mapping {
			back[pairName(Endpoint{g.Source.System, source}, Endpoint{g.Target.System, target})] = true
		}
	}
	out := map[string]any{}
	for name, v := range shared {
		if back[name] {
			out[name] = v
		}
	}
	return out
}

// pairName names a field pair the same from either side: system-qualified, sorted.
func pairName(a, b Endpoint) string {
	x, y := a.String(), b.String()
	if x > y {
		x, y = y, x
	}
	return x + "|" + y
}

// sameJSON compares two JSON values as JSON, numbers by their text (the dry run's
// "changed": 5.0 over 5 is a write the run sends).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && (string(x) == string(y) || reflect.DeepEqual(a, b))
}
