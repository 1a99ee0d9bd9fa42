package connector_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// Salesforce against shared/connector/vendors/salesforce.

func TestSalesforceReadsEveryDocumentedError(t *testing.T) {
	t.Parallel()
	checkErrorReadings(t, profileOf(connector.SystemCRM), loadFixtures(t, "salesforce"))
}

func TestSalesforceRequestsAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	fake, c, rc := startRecorded(t, pc)
	ctx := context.Background()
	fake.EditAfterNextReads(1)
	if _, err := c.Write(ctx, pc.write("k-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, connector.WriteRequest{Entity: "Account", RecordID: "C-9", UpsertKey: "ERP_Id__c",
		Fields: map[string]any{"Name": "Nordwind"}, IdempotencyKey: "k-2", Origin: "syncassist"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, connector.WriteRequest{Entity: "Account", Create: true, Fields: map[string]any{"Name": "New"},
		IdempotencyKey: "k-3", Origin: "syncassist"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Changes(ctx, pc.entity, time.Unix(0, 0), "", 10); err != nil {
		t.Fatal(err)
	}
	reqs := rc.requests()
	checkRequests(t, reqs, loadFixtures(t, "salesforce"))
	patches := 0
	for _, r := range reqs {
		if r.method == http.MethodPatch && strings.HasSuffix(r.path, "/"+pc.id) {
			patches++
			if r.header.Get("If-Unmodified-Since") == "" {
				t.Errorf("PATCH %s without If-Unmodified-Since", r.path)
			}
		}
	}
	if patches != 2 {
		t.Fatalf("%d PATCHes of the edited record, want 2: the first refused with 412, the second after reading again", patches)
	}
}

// An edit between the read and the PATCH is not overwritten: the PATCH carries the read's
// LastModifiedDate as If-Unmodified-Since, the 412 is answered by reading again and
// writing once more, and a second 412 is the caller's conflict.
func TestSalesforceWriteIsConditionalOnTheRead(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	fake, c, _ := startProfile(t, pc, nil)
	fake.EditAfterNextReads(1)
	res, err := c.Write(context.Background(), pc.write("k-1"))
	if err != nil || res.Replayed || fake.WriteCount() != 1 || fake.RequestsByMethod()[http.MethodPatch] != 2 {
		t.Fatalf("Write = %#v, %v; writes %d, PATCHes %d; want one write after one 412", res, err,
			fake.WriteCount(), fake.RequestsByMethod()[http.MethodPatch])
	}
	fake.EditAfterNextReads(2)
	req := pc.write("k-2")
	req.Fields = map[string]any{"BillingCountry": "AT"}
	_, err = c.Write(context.Background(), req)
	if ce := asError(t, err, connector.ErrConflict); ce.Status != http.StatusPreconditionFailed {
		t.Fatalf("error = %#v, want 412", ce)
	}
	if fake.WriteCount() != 1 {
		t.Fatal("a write over someone else's edit was applied")
	}
}

// 300 on an upsert: the body is the list of matching records' URLs, read as a conflict
// naming how many match.
func TestSalesforceUpsertMatchingSeveralRecords(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	fake, c, _ := startProfile(t, pc, nil)
	fake.Seed("Account", "001000000000002AAA", map[string]any{"ERP_Id__c": "C-7"})
	fake.Seed("Account", "001000000000003AAA", map[string]any{"ERP_Id__c": "C-7"})
	_, err := c.Write(context.Background(), connector.WriteRequest{Entity: "Account", RecordID: "C-7", UpsertKey: "ERP_Id__c",
		Fields: map[string]any{"Name": "X"}, IdempotencyKey: "k-1", Origin: "syncassist"})
	ce := asError(t, err, connector.ErrConflict)
	if ce.Status != http.StatusMultipleChoices || !strings.Contains(err.Error(), "matches 2 records") {
		t.Fatalf("error = %v, want 300 naming the 2 matches", err)
	}
}

func TestSalesforceFakeAnswersInTheDocumentedShapes(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	all := loadFixtures(t, "salesforce")
	row := "/services/data/v" + connector.SalesforceAPIVersion + "/sobjects/" + pc.entity + "/" + pc.id
	twoMatches := func(s *fakesystem.Server) {
		s.Seed("Account", "001000000000002AAA", map[string]any{"ERP_Id__c": "C-7"})
		s.Seed("Account", "001000000000003AAA", map[string]any{"ERP_Id__c": "C-7"})
	}
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	for name, provoke := range map[string]struct {
		method, path string
		header       map[string]string
		body         string
		prepare      func(*fakesystem.Server)
	}{
		"success-get-row":                       {method: "GET", path: row},
		"error-404-not-found":                   {method: "GET", path: row + "X"},
		"error-412-precondition-failed":         {method: "PATCH", path: row, header: map[string]string{"If-Unmodified-Since": long}, body: `{"Name":"x"}`},
		"error-400-invalid-if-unmodified-since": {method: "PATCH", path: row, header: map[string]string{"If-Unmodified-Since": "yesterday"}, body: `{"Name":"x"}`},
		"error-300-multiple-choices": {method: "PATCH", path: "/services/data/v" + connector.SalesforceAPIVersion + "/sobjects/Account/ERP_Id__c/C-7",
			body: `{"Name":"x"}`, prepare: twoMatches},
		"success-upsert-created":       {method: "PATCH", path: "/services/data/v" + connector.SalesforceAPIVersion + "/sobjects/Account/ERP_Id__c/C-8", body: `{"Name":"x"}`},
		"error-401-invalid-session-id": {method: "GET", path: row, prepare: func(s *fakesystem.Server) { s.RequireToken("sf-session") }},
		"error-400-unable-to-lock-row": {method: "PATCH", path: row, body: `{"Name":"x"}`,
			prepare: func(s *fakesystem.Server) { s.LockNextWrites(pc.entity, pc.id, 1) }},
	} {
		t.Run(name, func(t *testing.T) {
			f, ok := all[name]
			if !ok {
				t.Fatalf("no fixture %s", name)
			}
			checkAnswerShape(t, f, fakeRaw(t, pc, provoke.prepare, provoke.method, provoke.path, provoke.header, provoke.body))
		})
	}
}

// A dateTime field keeps the instant, not the text: Salesforce answers a write of
// "2026-11-29T10:30:00+01:00" as "2026-11-29T09:30:00.000+0000" (intro_valid_date_formats.htm;
// the answers' form is LastModifiedDate's). The write is found in the record all the same:
// the same write again is a replay that sends nothing, and Holds settles a lost answer as
// landed. Compared as text, neither held.
func TestSalesforceDateTimeWrittenIsFoundInItsAnsweredForm(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	fake, c, _ := startProfile(t, pc, nil)
	req := pc.write("k-1")
	req.Fields = map[string]any{"Renewal_At__c": "2026-11-29T10:30:00+01:00"}
	if _, err := c.Write(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rec, _ := fake.Get(pc.entity, pc.id)
	if got := rec.Fields["Renewal_At__c"]; got != "2026-11-29T09:30:00.000+0000" {
		t.Fatalf("stored %v, want Salesforce's form 2026-11-29T09:30:00.000+0000", got)
	}
	if !connector.Holds(rec.Fields, req.Fields) {
		t.Fatal("Holds: the record does not hold the date-time just written")
	}
	req.IdempotencyKey = "k-2"
	res, err := c.Write(context.Background(), req)
	if err != nil || !res.Replayed || fake.RequestsByMethod()[http.MethodPatch] != 1 {
		t.Fatalf("Write again = %#v, %v; PATCHes %d; want a replay sending nothing", res, err, fake.RequestsByMethod()[http.MethodPatch])
	}
}

func TestHoldsComparesDateTimesByInstant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		have, want string
		held       bool
	}{
		{"2026-11-29T09:30:00.000+0000", "2026-11-29T09:30:00Z", true},
		{"2026-11-29T09:30:00+00:00", "2026-11-29T10:30:00+01:00", true},
		{"2026-11-29T09:30:00.000+0000", "2026-11-29T09:30:01Z", false},
		{"2026-11-29", "2026-11-29T00:00:00Z", false},
		{"09:30", "09:30:00Z", false},
	} {
		if got := connector.Holds(map[string]any{"d": tc.have}, map[string]any{"d": tc.want}); got != tc.held {
			t.Errorf("Holds(%q, %q) = %v, want %v", tc.have, tc.want, got, tc.held)
		}
	}
}
