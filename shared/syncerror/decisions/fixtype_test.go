package decisions_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// fakeCatalog is the target record type's metadata: field → value type; err when it
// cannot be read.
type fakeCatalog struct {
	types map[string]string
	err   error
}

func (f fakeCatalog) WriteTarget(c syncerror.Claim) syncerror.WriteTarget {
	return syncerror.WriteTarget{System: "hosterp", Vendor: "NetSuite", RecordType: c.Record.RecordType, RecordID: c.Record.RecordID}
}

func (f fakeCatalog) TargetFields(context.Context, syncerror.Claim) (syncerror.TargetFields, error) {
	return syncerror.TargetFields{Target: "NetSuite salesOrder", Types: f.types}, f.err
}

var salesOrderFields = fakeCatalog{types: map[string]string{"shipzip": "string", "shipcountry": "string",
	"creditlimit": "decimal", "quantity": "integer", "taxable": "boolean", "shipdate": "date", "subsidiary": "reference"}}

func problemOf(t *testing.T, body []byte) (code string, fields map[string]string) {
	t.Helper()
	var p struct {
		Code   string
		Detail string
		Errors []struct{ Field, Message string }
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	fields = map[string]string{}
	for _, e := range p.Errors {
		fields[e.Field] = e.Message
	}
	return p.Code, fields
}

// A fix value is typed by its target field: "01067" stays text on a text field (and a
// number sent for one becomes its text), a number typed as text on a number field becomes
// the number, the learned value keeps the type written.
func TestApprovedFixIsTypedByItsTargetField(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.Op.Fields = salesOrderFields
	cases := []struct {
		body string
		want any
	}{
		{`{"fix":[{"path":"shipzip","after":"01067"}]}`, "01067"},
		{`{"fix":[{"path":"shipzip","after":1067}]}`, "1067"},
		{`{"fix":[{"path":"creditlimit","after":"2500.50"}]}`, json.Number("2500.50")},
		{`{"fix":[{"path":"quantity","after":"12"}]}`, json.Number("12")},
		{`{"fix":[{"path":"taxable","after":"true"}]}`, true},
		{`{"fix":[{"path":"shipdate","after":"2026-11-29"}]}`, "2026-11-29"},
		{`{"fix":[{"path":"shipzip","after":null}]}`, nil},
	}
	for i, tc := range cases {
		row := f.Arrive(t, "E-"+string(rune('a'+i)), "SO-1", `{"shipzip":"1067"}`)
		if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", tc.body); w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.body, w.Code, w.Body)
		}
		got := f.Writer.Writes[len(f.Writer.Writes)-1].Fix[0].After
		if got != tc.want {
			t.Fatalf("%s wrote %#v (%T), want %#v (%T)", tc.body, got, got, tc.want, tc.want)
		}
		if i > 0 {
			continue
		}
		if w := f.As(t, "olga", "operator", "GET", "/knowledge", ""); !strings.Contains(w.Body.String(), `"value":"01067"`) {
			t.Fatalf("the learned value lost its type: %s", w.Body)
		}
	}
}

// A value its field cannot hold is refused with the field named, and nothing is written.
func TestApproveRefusesAValueItsFieldCannotHold(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.Op.Fields = salesOrderFields
	for _, tc := range []struct{ path, after string }{
		{"creditlimit", `"ten"`}, {"quantity", `2.5`}, {"taxable", `"yes"`}, {"shipdate", `"29/11/2026"`},
		{"creditlimit", `"0x10"`}, {"shipzip", `{"a":1}`}, {"subsidiary", `true`},
		{"shipdate", `"2026-11-29T9:30:00Z"`}, // a one-digit hour: not RFC 3339, though Go's layout takes it
	} {
		row := f.Arrive(t, "E-"+tc.path+tc.after, "SO-1", `{}`)
		w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", `{"fix":[{"path":"`+tc.path+`","after":`+tc.after+`}]}`)
		code, fields := problemOf(t, w.Body.Bytes())
		if w.Code != http.StatusBadRequest || code != "validation_failed" || !strings.Contains(fields["fix[0].after"], tc.path) ||
			!strings.Contains(w.Body.String(), `\"`+tc.path+`\" is a`) {
			t.Fatalf("%s=%s: %d %s", tc.path, tc.after, w.Code, w.Body)
		}
		if got, _ := f.Claims.Get(context.Background(), "acme", row.ID); got.Status != syncerror.StatusPending {
			t.Fatalf("%s=%s left the row %s", tc.path, tc.after, got.Status)
		}
	}
	if f.Writer.Count() != 0 {
		t.Fatalf("a refused value was written: %+v", f.Writer.Writes)
	}
}

// A fix path that is no field of the target record type is refused as unknown_field,
// whether the person typed it or the proposal named it; nothing is written.
func TestApproveRefusesAFieldTheRecordTypeDoesNotHave(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.Op.Fields = salesOrderFields
	row := f.Arrive(t, "E-1", "SO-1", `{}`)
	w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", `{"fix":[{"path":"shipcountry","after":"DE"},{"path":"Id","after":"001x"}]}`)
	code, fields := problemOf(t, w.Body.Bytes())
	if w.Code != http.StatusBadRequest || code != "unknown_field" || fields["fix[1].path"] == "" || !strings.Contains(w.Body.String(), `\"Id\"`) {
		t.Fatalf("unknown field: %d %s", w.Code, w.Body)
	}
	w = f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", `{"fix":[{"path":"ShipZip","after":"01067"}]}`)
	if _, fields = problemOf(t, w.Body.Bytes()); !strings.Contains(fields["fix[0].path"], `did you mean "shipzip"`) {
		t.Fatalf("no hint for a field in another case: %s", w.Body)
	}
	f.AI.Fix = []syncerror.FieldChange{{Path: "iban", Before: nil, After: "DE89370400440532013000"}}
	proposed := f.Arrive(t, "E-2", "SO-2", `{}`)
	if w := f.As(t, "anna", "approver", "POST", "/p/"+proposed.ID+"/approve", ""); w.Code != http.StatusBadRequest || roomtest.ProblemCode(t, w) != "unknown_field" {
		t.Fatalf("a proposal's unknown field: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 0 {
		t.Fatalf("written: %+v", f.Writer.Writes)
	}
}

// Where the metadata cannot be read the fix is written exactly as sent: no type guessed.
func TestApproveWithoutMetadataWritesTheValueAsSent(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.Op.Fields = fakeCatalog{err: errors.New("connector_not_configured")}
	row := f.Arrive(t, "E-1", "SO-1", `{}`)
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", `{"fix":[{"path":"anything","after":"01067"}]}`); w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if got := f.Writer.Writes[0].Fix[0].After; got != "01067" {
		t.Fatalf("wrote %#v", got)
	}
}

// deadlineCatalog records the deadline its read was given and fails it, as a vendor
// that does not answer in time.
type deadlineCatalog struct {
	fakeCatalog
	deadline *time.Time
}

func (d deadlineCatalog) TargetFields(ctx context.Context, _ syncerror.Claim) (syncerror.TargetFields, error) {
	dl, _ := ctx.Deadline()
	*d.deadline = dl
	return syncerror.TargetFields{}, context.DeadlineExceeded
}

// A slow vendor's metadata does not eat the approve's time: the read is bounded, and the
// fix is then written as sent.
func TestApproveBoundsTheMetadataRead(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	var dl time.Time
	f.Op.Fields = deadlineCatalog{deadline: &dl}
	row := f.Arrive(t, "E-1", "SO-1", `{}`)
	start := time.Now()
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", `{"fix":[{"path":"shipzip","after":"01067"}]}`); w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if dl.IsZero() || dl.Sub(start) > syncerror.MetadataWait+time.Second {
		t.Fatalf("metadata read deadline %v after start, want at most %v", dl.Sub(start), syncerror.MetadataWait)
	}
	if got := f.Writer.Writes[0].Fix[0].After; got != "01067" {
		t.Fatalf("wrote %#v", got)
	}
}

// An edited fix's numbers are written digit for digit, typed or not: an integer field
// gets the integer sent (not 9007199254740992), a text field the literal digits (not
// "12345678901234567890" read through float64 as 12345678901234567000), a field of no
// known type the number as sent. float64 keeps 53 bits.
func TestAnEditedFixKeepsItsNumbersDigitForDigit(t *testing.T) {
	body := `{"fix":[{"path":"externalRef","after":9007199254740993},` +
		`{"path":"accountNumber","after":12345678901234567890},{"path":"untyped","after":9007199254740993}]}`
	for _, tc := range []struct {
		name   string
		fields fakeCatalog
		want   string
	}{
		{"typed by the target's fields", fakeCatalog{types: map[string]string{"externalRef": "integer", "accountNumber": "string", "untyped": "select"}},
			`{"accountNumber":"12345678901234567890","externalRef":9007199254740993,"untyped":9007199254740993}`},
		{"written as sent without metadata", fakeCatalog{},
			`{"accountNumber":12345678901234567890,"externalRef":9007199254740993,"untyped":9007199254740993}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := roomtest.NewAssistFixture(t)
			f.Op.Fields = tc.fields
			c := f.Arrive(t, "E-1", "SO-1", `{"shipzip":"1067"}`)
			if w := f.As(t, "anna", "approver", "POST", "/p/"+c.ID+"/approve", body); w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			fields := map[string]any{}
			for _, ch := range f.Writer.Writes[0].Fix {
				fields[ch.Path] = ch.After
			}
			if b, _ := json.Marshal(fields); string(b) != tc.want {
				t.Fatalf("written %s\nwant    %s", b, tc.want)
			}
			row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
			if b, _ := json.Marshal(syncerror.FixFields(syncerror.WrittenFix(row))); string(b) != tc.want {
				t.Fatalf("the row records %s as written, want %s", b, tc.want)
			}
		})
	}
}
