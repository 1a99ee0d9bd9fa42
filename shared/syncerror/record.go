package syncerror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// MaxBodyBytes is the largest webhook body accepted (256 KiB).
const MaxBodyBytes = 256 << 10

// Record is the inbound sync-error record the host ERP posts.
type Record struct {
	TenantID       string          `json:"tenantId"`
	ErrorID        string          `json:"errorId"`
	RecordType     string          `json:"recordType"`
	RecordID       string          `json:"recordId"`
	ErrorCode      string          `json:"errorCode"`
	Message        string          `json:"message"`
	OccurredAt     time.Time       `json:"occurredAt"`
	Integration    string          `json:"integration,omitempty"`
	ExternalSystem string          `json:"externalSystem,omitempty"`
	Direction      string          `json:"direction,omitempty"`
	Payload        json.RawMessage `json:"payload,omitempty"`
	Context        json.RawMessage `json:"context,omitempty"`
}

// FieldError is one invalid field of a record.
type FieldError struct {
	Field   string
	Message string
}

// ValidationError lists every invalid field of a record at once.
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid sync-error record: %d field error(s)", len(e.Fields))
}

// ErrMalformedJSON is returned when the body is not a JSON object.
var ErrMalformedJSON = fmt.Errorf("body is not a JSON object")

type stringRule struct {
	name     string
	required bool
	max      int
	dst      func(*Record) *string
}

var stringRules = []stringRule{
	{"tenantId", true, 63, func(r *Record) *string { return &r.TenantID }},
	{"errorId", true, 256, func(r *Record) *string { return &r.ErrorID }},
	{"recordType", true, 128, func(r *Record) *string { return &r.RecordType }},
	{"recordId", true, 256, func(r *Record) *string { return &r.RecordID }},
	{"errorCode", true, 128, func(r *Record) *string { return &r.ErrorCode }},
	{"message", true, 16 << 10, func(r *Record) *string { return &r.Message }},
	{"integration", false, 128, func(r *Record) *string { return &r.Integration }},
	{"externalSystem", false, 128, func(r *Record) *string { return &r.ExternalSystem }},
	{"direction", false, 16, func(r *Record) *string { return &r.Direction }},
}

// Directions a record may name.
var Directions = []string{"inbound", "outbound"}

// ParseRecord decodes and validates a webhook body. tenantHeader is the X-Tenant-Id the
// request was authenticated for; the body's tenantId must equal it. Unknown fields are
// ignored so the host can add fields without breaking delivery. It returns
// ErrMalformedJSON or a *ValidationError listing every problem.
func ParseRecord(body []byte, tenantHeader string) (Record, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return Record{}, ErrMalformedJSON
	}
	// Exactly one value: anything after it, even a stray '}', makes the body malformed.
	if _, err := dec.Token(); err != io.EOF {
		return Record{}, ErrMalformedJSON
	}
	var r Record
	var errs []FieldError
	add := func(field, msg string) { errs = append(errs, FieldError{field, msg}) }

	for _, rule := range stringRules {
		v, present := raw[rule.name]
		if !present || isNull(v) {
			if rule.required {
				add(rule.name, "is required")
			}
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			add(rule.name, "must be a string")
			continue
		}
		switch {
		case rule.required && s == "":
			add(rule.name, "must not be empty")
		case utf8.RuneCountInString(s) > rule.max:
			add(rule.name, fmt.Sprintf("must be at most %d characters", rule.max))
		case rule.name != "message" && HasControl(s):
			add(rule.name, "must not contain control characters")
		default:
			*rule.dst(&r) = s
		}
	}
	if r.TenantID != "" && r.TenantID != tenantHeader {
		add("tenantId", "must equal the X-Tenant-Id header")
	}
	if r.Direction != "" && r.Direction != Directions[0] && r.Direction != Directions[1] {
		add("direction", "must be \"inbound\" or \"outbound\"")
	}

	switch v, present := raw["occurredAt"]; {
	case !present || isNull(v):
		add("occurredAt", "is required")
	default:
		var s string
		t, err := time.Time{}, json.Unmarshal(v, &s)
		if err == nil {
			t, err = httpapi.ParseTime(s)
		}
		if err != nil {
			add("occurredAt", "must be an RFC 3339 date-time such as 2026-11-22T09:30:00Z")
		} else {
			r.OccurredAt = t.UTC()
		}
	}

	for _, name := range []string{"payload", "context"} {
		v, present := raw[name]
		if !present || isNull(v) {
			continue
		}
		if bytes.TrimSpace(v)[0] != '{' {
			add(name, "must be a JSON object")
			continue
		}
		if name == "payload" {
			r.Payload = v
		} else {
			r.Context = v
		}
	}
	if len(errs) > 0 {
		return Record{}, &ValidationError{Fields: errs}
	}
	return r, nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// HasControl reports whether s holds a control character.
func HasControl(s string) bool {
	for _, c := range s {
		if unicode.IsControl(c) {
			return true
		}
	}
	return false
}

// MarshalRecord is r's JSON form, which ParseRecord reads back: its payload and context
// keep their text, only compacted (json.Marshal would also escape "&", "<" and ">" in
// them as \u0026, \u003c and \u003e: the same values, but not the text vouched for).
func MarshalRecord(r Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
