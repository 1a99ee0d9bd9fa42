package syncerror_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// recordTenant is the X-Tenant-Id the record tests authenticate for.
const recordTenant = "acme"

// recordFields returns a valid record as a field map that a case can change.
func recordFields() map[string]any {
	return map[string]any{
		"tenantId":       recordTenant,
		"errorId":        "err-1001",
		"recordType":     "salesorder",
		"recordId":       "SO-42",
		"errorCode":      "INVALID_FLD_VALUE",
		"message":        "Invalid value for field 'subsidiary'.",
		"occurredAt":     "2026-11-22T09:30:00Z",
		"integration":    "celigo",
		"externalSystem": "shopify",
		"direction":      "inbound",
		"payload":        map[string]any{"subsidiary": "7"},
		"context":        map[string]any{"flow": "orders"},
	}
}

// recordBody marshals the valid record with changes applied; a nil value in changes removes
// the field, so use json.RawMessage("null") for an explicit null.
func recordBody(t testing.TB, changes map[string]any) []byte {
	t.Helper()
	m := recordFields()
	for k, v := range changes {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fieldNames returns the fields a ParseRecord error lists, failing unless it is a
// *ValidationError.
func fieldNames(t testing.TB, err error) []string {
	t.Helper()
	var ve *syncerror.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v (%T), want *ValidationError", err, err)
	}
	if len(ve.Fields) == 0 || ve.Error() == "" {
		t.Fatalf("ValidationError with no fields or no message: %+v", ve)
	}
	names := make([]string, 0, len(ve.Fields))
	for _, f := range ve.Fields {
		if f.Message == "" {
			t.Errorf("field %q has no message", f.Field)
		}
		names = append(names, f.Field)
	}
	return names
}

func TestParseRecordValid(t *testing.T) {
	t.Parallel()
	body := []byte(`{
		"tenantId": "acme",
		"errorId": "err-1001",
		"recordType": "salesorder",
		"recordId": "SO-42",
		"errorCode": "INVALID_FLD_VALUE",
		"message": "Invalid value for field 'subsidiary'.\nPlease pick one of: 1, 2.\tThanks",
		"occurredAt": "2026-11-22T11:30:00+02:00",
		"integration": "celigo",
		"externalSystem": "shopify",
		"direction": "outbound",
		"payload": {"subsidiary": "7", "amount": 12345678901234567890, "lines": [1, 2]},
		"context": {"flow": {"id": "orders"}},
		"somethingNew": {"the host may add": "fields"},
		"schemaVersion": 3
	}`)
	got, err := syncerror.ParseRecord(body, "acme")
	if err != nil {
		t.Fatalf("ParseRecord = %v", err)
	}
	want := syncerror.Record{
		TenantID:       "acme",
		ErrorID:        "err-1001",
		RecordType:     "salesorder",
		RecordID:       "SO-42",
		ErrorCode:      "INVALID_FLD_VALUE",
		Message:        "Invalid value for field 'subsidiary'.\nPlease pick one of: 1, 2.\tThanks",
		OccurredAt:     time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC),
		Integration:    "celigo",
		ExternalSystem: "shopify",
		Direction:      "outbound",
		Payload:        json.RawMessage(`{"subsidiary": "7", "amount": 12345678901234567890, "lines": [1, 2]}`),
		Context:        json.RawMessage(`{"flow": {"id": "orders"}}`),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseRecord =\n%+v\nwant\n%+v", got, want)
	}
	if got.OccurredAt.Location() != time.UTC {
		t.Errorf("occurredAt location = %v, want UTC", got.OccurredAt.Location())
	}
}

func TestParseRecordAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		changes map[string]any
		check   func(t *testing.T, r syncerror.Record)
	}{
		{"optional fields absent", map[string]any{"integration": nil, "externalSystem": nil, "direction": nil, "payload": nil, "context": nil},
			func(t *testing.T, r syncerror.Record) {
				if r.Integration != "" || r.ExternalSystem != "" || r.Direction != "" || r.Payload != nil || r.Context != nil {
					t.Errorf("optional fields = %+v, want zero", r)
				}
			}},
		{"optional fields null", map[string]any{"integration": json.RawMessage("null"), "externalSystem": json.RawMessage("null"), "direction": json.RawMessage("null"), "payload": json.RawMessage("null"), "context": json.RawMessage("null")},
			func(t *testing.T, r syncerror.Record) {
				if r.Integration != "" || r.ExternalSystem != "" || r.Direction != "" || r.Payload != nil || r.Context != nil {
					t.Errorf("optional fields = %+v, want zero", r)
				}
			}},
		{"optional strings empty", map[string]any{"integration": "", "externalSystem": "", "direction": ""}, nil},
		{"direction inbound", map[string]any{"direction": "inbound"}, func(t *testing.T, r syncerror.Record) {
			if r.Direction != "inbound" {
				t.Errorf("direction = %q", r.Direction)
			}
		}},
		{"direction outbound", map[string]any{"direction": "outbound"}, nil},
		{"occurredAt with offset", map[string]any{"occurredAt": "2026-11-22T04:30:00-05:00"}, func(t *testing.T, r syncerror.Record) {
			if want := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC); !r.OccurredAt.Equal(want) || r.OccurredAt.Location() != time.UTC {
				t.Errorf("occurredAt = %v, want %v", r.OccurredAt, want)
			}
		}},
		{"occurredAt with fractional seconds", map[string]any{"occurredAt": "2026-11-22T09:30:00.123456789Z"}, func(t *testing.T, r syncerror.Record) {
			if want := time.Date(2026, 11, 22, 9, 30, 0, 123456789, time.UTC); !r.OccurredAt.Equal(want) {
				t.Errorf("occurredAt = %v, want %v", r.OccurredAt, want)
			}
		}},
		{"occurredAt with millis and offset", map[string]any{"occurredAt": "2026-11-22T10:30:00.5+01:00"}, func(t *testing.T, r syncerror.Record) {
			if want := time.Date(2026, 11, 22, 9, 30, 0, 500000000, time.UTC); !r.OccurredAt.Equal(want) || r.OccurredAt.Location() != time.UTC {
				t.Errorf("occurredAt = %v, want %v UTC", r.OccurredAt, want)
			}
		}},
		{"empty payload and context objects", map[string]any{"payload": map[string]any{}, "context": map[string]any{}}, func(t *testing.T, r syncerror.Record) {
			if string(r.Payload) != "{}" || string(r.Context) != "{}" {
				t.Errorf("payload=%s context=%s, want {}", r.Payload, r.Context)
			}
		}},
		{"newlines and tabs in message", map[string]any{"message": "line 1\nline 2\r\n\tindented"}, func(t *testing.T, r syncerror.Record) {
			if r.Message != "line 1\nline 2\r\n\tindented" {
				t.Errorf("message = %q", r.Message)
			}
		}},
		{"unknown fields ignored", map[string]any{"retryCount": 3, "host": map[string]any{"name": "erp"}, "tags": []string{"a"}}, nil},
		{"errorId at 256 characters", map[string]any{"errorId": strings.Repeat("e", 256)}, nil},
		{"errorId of 256 multi-byte characters", map[string]any{"errorId": strings.Repeat("é", 256)}, nil},
		{"recordType at 128", map[string]any{"recordType": strings.Repeat("t", 128)}, nil},
		{"recordId at 256", map[string]any{"recordId": strings.Repeat("r", 256)}, nil},
		{"errorCode at 128", map[string]any{"errorCode": strings.Repeat("c", 128)}, nil},
		{"message at 16384", map[string]any{"message": strings.Repeat("m", 16<<10)}, nil},
		{"integration at 128", map[string]any{"integration": strings.Repeat("i", 128)}, nil},
		{"externalSystem at 128", map[string]any{"externalSystem": strings.Repeat("x", 128)}, nil},
		{"unicode ids", map[string]any{"errorId": "エラー-1", "recordId": "Ünïcødé"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := syncerror.ParseRecord(recordBody(t, tt.changes), recordTenant)
			if err != nil {
				var ve *syncerror.ValidationError
				errors.As(err, &ve)
				t.Fatalf("ParseRecord = %v %+v", err, ve)
			}
			if r.TenantID != recordTenant || r.ErrorID == "" || r.OccurredAt.IsZero() {
				t.Fatalf("record = %+v", r)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestParseRecordFieldErrors(t *testing.T) {
	t.Parallel()
	required := []string{"tenantId", "errorId", "recordType", "recordId", "errorCode", "message", "occurredAt"}
	null := json.RawMessage("null")
	type tc struct {
		name    string
		changes map[string]any
		header  string // "" means recordTenant
		want    []string
	}
	var tests []tc
	for _, f := range required {
		tests = append(tests,
			tc{f + " missing", map[string]any{f: nil}, "", []string{f}},
			tc{f + " null", map[string]any{f: null}, "", []string{f}},
			tc{f + " empty", map[string]any{f: ""}, "", []string{f}},
		)
	}
	tests = append(tests, []tc{
		// Wrong JSON types.
		{"errorId is a number", map[string]any{"errorId": 5}, "", []string{"errorId"}},
		{"tenantId is an object", map[string]any{"tenantId": map[string]any{"id": "acme"}}, "", []string{"tenantId"}},
		{"message is an object", map[string]any{"message": map[string]any{}}, "", []string{"message"}},
		{"recordId is an array", map[string]any{"recordId": []string{"SO-42"}}, "", []string{"recordId"}},
		{"errorCode is a bool", map[string]any{"errorCode": true}, "", []string{"errorCode"}},
		{"integration is a number", map[string]any{"integration": 1}, "", []string{"integration"}},
		{"direction is a bool", map[string]any{"direction": false}, "", []string{"direction"}},
		{"payload is an array", map[string]any{"payload": []int{1}}, "", []string{"payload"}},
		{"payload is a string", map[string]any{"payload": "x"}, "", []string{"payload"}},
		{"payload is a JSON-object string", map[string]any{"payload": `{"a":1}`}, "", []string{"payload"}},
		{"payload is a number", map[string]any{"payload": 7}, "", []string{"payload"}},
		{"payload is a bool", map[string]any{"payload": true}, "", []string{"payload"}},
		{"context is an array", map[string]any{"context": []any{}}, "", []string{"context"}},
		{"occurredAt is a number", map[string]any{"occurredAt": 12}, "", []string{"occurredAt"}},
		{"occurredAt is unix seconds text", map[string]any{"occurredAt": "1795341600"}, "", []string{"occurredAt"}},
		{"occurredAt without zone", map[string]any{"occurredAt": "2026-11-22T09:30:00"}, "", []string{"occurredAt"}},
		{"occurredAt date only", map[string]any{"occurredAt": "2026-11-22"}, "", []string{"occurredAt"}},
		{"occurredAt with space separator", map[string]any{"occurredAt": "2026-11-22 09:30:00Z"}, "", []string{"occurredAt"}},
		{"occurredAt impossible date", map[string]any{"occurredAt": "2026-02-30T09:30:00Z"}, "", []string{"occurredAt"}},
		{"occurredAt RFC 1123", map[string]any{"occurredAt": "Sun, 22 Nov 2026 09:30:00 GMT"}, "", []string{"occurredAt"}},
		// Go's RFC 3339 layout takes these; RFC 3339 does not (httpapi.ParseTime).
		{"occurredAt with a one-digit hour", map[string]any{"occurredAt": "2026-11-22T9:30:00Z"}, "", []string{"occurredAt"}},
		{"occurredAt with a decimal comma", map[string]any{"occurredAt": "2026-11-22T09:30:00,5Z"}, "", []string{"occurredAt"}},
		// Over-long fields.
		{"tenantId over 63", map[string]any{"tenantId": strings.Repeat("a", 64)}, strings.Repeat("a", 64), []string{"tenantId"}},
		{"errorId over 256", map[string]any{"errorId": strings.Repeat("e", 257)}, "", []string{"errorId"}},
		{"errorId over 256 multi-byte", map[string]any{"errorId": strings.Repeat("é", 257)}, "", []string{"errorId"}},
		{"recordType over 128", map[string]any{"recordType": strings.Repeat("t", 129)}, "", []string{"recordType"}},
		{"recordId over 256", map[string]any{"recordId": strings.Repeat("r", 257)}, "", []string{"recordId"}},
		{"errorCode over 128", map[string]any{"errorCode": strings.Repeat("c", 129)}, "", []string{"errorCode"}},
		{"message over 16384", map[string]any{"message": strings.Repeat("m", 16<<10+1)}, "", []string{"message"}},
		{"integration over 128", map[string]any{"integration": strings.Repeat("i", 129)}, "", []string{"integration"}},
		{"externalSystem over 128", map[string]any{"externalSystem": strings.Repeat("x", 129)}, "", []string{"externalSystem"}},
		{"direction over 16", map[string]any{"direction": strings.Repeat("d", 17)}, "", []string{"direction"}},
		// Control characters in ids (message alone may hold newlines).
		{"NUL in errorId", map[string]any{"errorId": "err\x00-1"}, "", []string{"errorId"}},
		{"newline in errorId", map[string]any{"errorId": "err\n-1"}, "", []string{"errorId"}},
		{"tab in recordId", map[string]any{"recordId": "SO\t42"}, "", []string{"recordId"}},
		{"DEL in recordType", map[string]any{"recordType": "sales\x7forder"}, "", []string{"recordType"}},
		{"escape in errorCode", map[string]any{"errorCode": "\x1b[31mRED"}, "", []string{"errorCode"}},
		{"carriage return in tenantId", map[string]any{"tenantId": "acme\r"}, "acme\r", []string{"tenantId"}},
		{"newline in integration", map[string]any{"integration": "celigo\n"}, "", []string{"integration"}},
		{"newline in externalSystem", map[string]any{"externalSystem": "shop\nify"}, "", []string{"externalSystem"}},
		// Direction values.
		{"direction capitalised", map[string]any{"direction": "Inbound"}, "", []string{"direction"}},
		{"direction unknown", map[string]any{"direction": "sideways"}, "", []string{"direction"}},
		{"direction padded", map[string]any{"direction": " inbound"}, "", []string{"direction"}},
		// Tenant must equal the authenticated header.
		{"tenantId differs from header", nil, "globex", []string{"tenantId"}},
		{"tenantId differs only in case", map[string]any{"tenantId": "ACME"}, "", []string{"tenantId"}},
		{"tenantId with trailing space", map[string]any{"tenantId": "acme "}, "", []string{"tenantId"}},
		// Several problems are all listed, in a stable order.
		{"several problems", map[string]any{"errorId": 5, "direction": "up", "payload": []int{1}, "occurredAt": 12, "message": nil}, "",
			[]string{"errorId", "message", "direction", "occurredAt", "payload"}},
		{"mismatched tenant and bad context", map[string]any{"context": "x"}, "globex", []string{"tenantId", "context"}},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			header := tt.header
			if header == "" {
				header = recordTenant
			}
			r, err := syncerror.ParseRecord(recordBody(t, tt.changes), header)
			if got := fieldNames(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("fields = %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(r, syncerror.Record{}) {
				t.Errorf("record on error = %+v, want zero", r)
			}
		})
	}
}

func TestParseRecordAllMissing(t *testing.T) {
	t.Parallel()
	want := []string{"tenantId", "errorId", "recordType", "recordId", "errorCode", "message", "occurredAt"}
	for _, body := range []string{`{}`, `{"unrelated": true}`, `{"tenantId": null, "errorId": null}`} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			for i := 0; i < 5; i++ { // stable across runs, not map order
				_, err := syncerror.ParseRecord([]byte(body), recordTenant)
				if got := fieldNames(t, err); !reflect.DeepEqual(got, want) {
					t.Fatalf("fields = %v, want %v", got, want)
				}
			}
		})
	}
}

func TestParseRecordMalformed(t *testing.T) {
	t.Parallel()
	valid := string(recordBody(t, nil))
	tests := []struct {
		name string
		body string
		skip string // a known bug: the reason the case is skipped
	}{
		{"empty body", "", ""},
		{"whitespace only", " \n\t", ""},
		{"null", "null", ""},
		{"array", `[]`, ""},
		{"array of the record", "[" + valid + "]", ""},
		{"string", `"x"`, ""},
		{"number", `5`, ""},
		{"bool", `true`, ""},
		{"truncated", valid[:len(valid)-1], ""},
		{"unclosed", `{`, ""},
		{"missing value", `{"errorId":}`, ""},
		{"single quotes", `{'errorId': 'x'}`, ""},
		{"trailing comma", `{"errorId": "x",}`, ""},
		{"two objects", `{} {}`, ""},
		{"valid record then object", valid + " {}", ""},
		{"trailing garbage", valid + "x", ""},
		{"trailing number", valid + " 1", ""},
		{"trailing brace", valid + "}", ""},
		{"trailing bracket", valid + "]", ""},
		{"empty object then brace", `{}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.skip != "" {
				t.Skip(tt.skip)
			}
			r, err := syncerror.ParseRecord([]byte(tt.body), recordTenant)
			if !errors.Is(err, syncerror.ErrMalformedJSON) {
				t.Fatalf("ParseRecord(%.40q) = %v, want ErrMalformedJSON", tt.body, err)
			}
			if !reflect.DeepEqual(r, syncerror.Record{}) {
				t.Errorf("record on error = %+v, want zero", r)
			}
		})
	}
	t.Run("trailing whitespace is fine", func(t *testing.T) {
		t.Parallel()
		if _, err := syncerror.ParseRecord([]byte(valid+" \n\t"), recordTenant); err != nil {
			t.Fatalf("ParseRecord = %v", err)
		}
	})
}

// FuzzParseRecord checks that ParseRecord never panics and that whatever it accepts meets
// the record contract.
