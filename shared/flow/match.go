package flow

import (
	"encoding/json"
	"regexp"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// MatchBy is how a flow finds the target record of a source record the cross-reference
// does not know yet.
type MatchBy string

const (
	// MatchNone looks for nothing: only records the cross-reference knows are updated
	// (and, with Create, a new one is made for any other).
	MatchNone MatchBy = "none"
	// MatchExternalID addresses the target by an external-id field holding the key: the
	// vendor's upsert where it has one (NetSuite externalId, a Salesforce external-id
	// field, Mailchimp's email_address, ShipStation's orderKey), and for Business Central,
	// which has none, a find by the field followed by a create that sets it.
	MatchExternalID MatchBy = "externalId"
	// MatchLookup finds the target by a unique field holding the key (SuiteQL, SOQL,
	// OData $filter, Mailchimp's member hash, ShipStation's orderNumber filter).
	MatchLookup MatchBy = "lookup"
)

// Match says how a flow finds, or makes, the counterpart of a source record. A flow
// without one writes the target record with the source record's id, as flows between
// systems that share ids do.
type Match struct {
	By MatchBy `json:"by"`
	// Field is the target's external-id or unique field (empty with MatchNone).
	Field string `json:"field,omitempty"`
	// SourceField is the source field whose value the target's Field holds; empty: the
	// source record's id.
	SourceField string `json:"sourceField,omitempty"`
	// Create makes the counterpart when none is found (an upsert by external id always
	// makes it; Create false then refuses to, by never sending the upsert without a match).
	Create bool `json:"create"`
}

// matchField is a field name the vendors' queries take.
var matchField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// fixedKeys are the external-id fields the vendors with a fixed upsert key take.
var fixedKeys = map[connector.System]string{
	connector.SystemHostERP:   connector.NetSuiteExternalID,
	connector.SystemMarketing: connector.MailchimpEmail,
	connector.SystemShipping:  connector.ShipStationOrderKey,
}

// lookupFields are the only fields Mailchimp and ShipStation can be searched by exactly.
var lookupFields = map[connector.System]string{
	connector.SystemMarketing: connector.MailchimpEmail,
	connector.SystemShipping:  "orderNumber",
}

// validateMatch lists the problems of f.Match, by JSON field path.
func (f Flow) validateMatch() []httpapi.FieldError {
	m := f.Match
	if m == nil {
		return nil
	}
	var errs []httpapi.FieldError
	add := func(field, msg string) {
		errs = append(errs, httpapi.FieldError{Field: "match." + field, Message: msg})
	}
	target := f.Target.System
	switch m.By {
	case MatchNone:
		if m.Field != "" {
			add("field", "must be empty when by is none")
		}
		if m.SourceField != "" {
			add("sourceField", "must be empty when by is none")
		}
	case MatchExternalID:
		if want, fixed := fixedKeys[target]; fixed && m.Field != want {
			add("field", "must be "+want+": the external id "+string(target)+" upserts by")
		} else if !matchField.MatchString(m.Field) {
			add("field", "must name the target's external-id field (letters, digits and '_')")
		}
		if target == connector.SystemShipping && f.Target.Entity != "orders" {
			add("by", "ShipStation upserts orders only")
		}
	case MatchLookup:
		if want, only := lookupFields[target]; only && m.Field != want {
			add("field", "must be "+want+": the only field "+string(target)+" is searched by exactly")
		} else if !matchField.MatchString(m.Field) {
			add("field", "must name a unique field of the target (letters, digits and '_')")
		}
	default:
		add("by", "must be externalId, lookup or none")
	}
	if m.SourceField != "" && !validName(m.SourceField) {
		add("sourceField", "must be 1 to 128 visible characters")
	}
	if m.By == MatchExternalID && !m.Create && upserts(target) {
		add("create", "must be true: "+string(target)+"'s upsert by external id creates the record when none has the key")
	}
	return errs
}

// upserts says whether the system has an upsert by external id (all but Business Central).
func upserts(s connector.System) bool { _, ok := fixedKeys[s]; return ok || s == connector.SystemCRM }

// matchKeyValue is the key an event carries for m as the source typed it, when that is
// not text (a number, a boolean); nil otherwise: matchKey's text is the value.
func matchKeyValue(m *Match, ev Event) any {
	if m == nil || m.By == MatchNone || m.SourceField == "" {
		return nil
	}
	switch v := ev.Fields[m.SourceField].(type) {
	case json.Number, float64, int, int64, bool:
		return v
	}
	return nil
}

// matchKey is the key value an event carries for m: the record id, or the source field's
// value as text; "" when the event does not carry it.
func matchKey(m *Match, ev Event) string {
	if m == nil || m.By == MatchNone {
		return ""
	}
	if m.SourceField == "" {
		return ev.RecordID
	}
	switch v := ev.Fields[m.SourceField].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case float64, int, int64, bool:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return ""
}
