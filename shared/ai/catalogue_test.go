package ai

import (
	"strings"
	"testing"
)

// TestCataloguesAreWellFormed: every code has a meaning and a source with an address, a
// class that exists (or none, for codes that name no class), and appears once per vendor.
func TestCataloguesAreWellFormed(t *testing.T) {
	for _, c := range append(catalogues(), runtimeCatalogue) {
		seen := map[string]bool{}
		for _, v := range append(append([]vendorCode{}, c.codes...), c.prefixes...) {
			n := normCode(v.code)
			switch {
			case n == "":
				t.Errorf("%s: code %q normalizes to nothing", c.vendor, v.code)
			case seen[n]:
				t.Errorf("%s: code %q listed twice", c.vendor, v.code)
			case v.meaning == "" || v.src.url == "":
				t.Errorf("%s: code %q has no meaning or no source address", c.vendor, v.code)
			case v.class != "" && !v.class.Valid():
				t.Errorf("%s: code %q maps to unknown class %q", c.vendor, v.code, v.class)
			}
			seen[n] = true
		}
	}
	for s, m := range httpStatuses {
		if !m.class.Valid() || m.src.url == "" {
			t.Errorf("status %d: class %q, source %q", s, m.class, m.src)
		}
	}
}

func TestCodesAreFoundHoweverSpelled(t *testing.T) {
	for _, c := range []struct{ system, code, msg string }{
		{"mailchimp", "Member Exists", ""},
		{"mailchimp", "MemberExists", ""},
		{"", "", `[{"message":"x","errorCode":"DUPLICATE_VALUE"}]`},
		{"netsuite", "DUP_CUST_EMAIL", ""},
		{"", "java.net.SocketTimeoutException", "Read timed out"},
		{"", "", "System.Net.Sockets.SocketException (10054): reset"},
	} {
		if len(scopeOf(DiagnosisRequest{ExternalSystem: c.system}).codeEvidence(c.code, c.msg)) == 0 {
			t.Errorf("no code found in %+v", c)
		}
	}
	if ev := (scope{}).codeEvidence("", "Please enter value(s) for: Subsidiary"); len(ev) != 0 {
		t.Errorf("ordinary words taken for codes: %+v", ev)
	}
}

// TestRationaleNamesEvidenceAndSource: the rationale says, for an operator, which kind of
// evidence decided and where its meaning comes from, in the error's own words; the rules'
// internals (rule names) stay out of it.
func TestRationaleNamesEvidenceAndSource(t *testing.T) {
	for _, c := range []struct {
		system, code, msg string
		want              ErrorClass
		says              []string
		never             []string
	}{
		{"netsuite", "DUP_ENTITY", "This entity already exists.", ClassDuplicate,
			[]string{"NetSuite already has this record", "Decided by the error code DUP_ENTITY", "docs.oracle.com", `the words "already exists"`, "What to do: Link the record"},
			[]string{"Classified as", "weight"}},
		{"shipstation", "504", "", ClassConnection,
			[]string{"No usable answer came from ShipStation", "Decided by HTTP status 504", "rfc9110", "the queue runs the sync again from its source"},
			[]string{"Retrying it unchanged"}},
		{"salesforce", "403", "API limit reached for this organization", ClassRateLimit,
			[]string{`Decided by the message's words "API limit reached"`, "class definitions count as throttling", "raise its quota in Salesforce"},
			[]string{"API or governance limit reached"}},
		{"netsuite", "USER_ERROR", "The period is closed.", ClassValue,
			[]string{"NetSuite's business rules do not allow a value", "The code USER_ERROR alone says only", "docs.oracle.com", "A person decides", "Retrying it unchanged will fail the same way."},
			[]string{"closed accounting period"}},
		{"", "", "something odd happened", ClassValue, []string{"lowest confidence", "for a person to judge"}, nil},
		// Evidence that repeats the deciding evidence or another quote is not listed again.
		{"salesforce", "REQUIRED_FIELD_MISSING", "Required fields are missing: [LastName]", ClassMissing,
			[]string{"Decided by the error code REQUIRED_FIELD_MISSING"}, []string{"pointing there: the code REQUIRED_FIELD_MISSING"}},
		{"mailchimp", "400", "members: array has more than 500 items", ClassTooLarge,
			[]string{"Decided by the message's words"}, []string{`Also pointing there: the words`}},
	} {
		a := analyze(DiagnosisRequest{ExternalSystem: c.system, ErrorCode: c.code, Message: c.msg})
		r := a.diagnosis().Rationale
		if a.cls.class != c.want {
			t.Errorf("%+v: class %s, want %s", c, a.cls.class, c.want)
		}
		for _, s := range c.says {
			if !strings.Contains(r, s) {
				t.Errorf("%s %s: rationale lacks %q: %s", c.code, c.msg, s, r)
			}
		}
		for _, s := range c.never {
			if strings.Contains(r, s) {
				t.Errorf("%s %s: rationale has %q, an internal: %s", c.code, c.msg, s, r)
			}
		}
	}
}

// TestEvidenceOrder: a vendor's decisive code outweighs contrary wording; a quota named in
// words outweighs the status that carried it; refusals propose no format correction.
func TestEvidenceOrder(t *testing.T) {
	if c := classify(scopeOf(DiagnosisRequest{ExternalSystem: "salesforce"}), "REQUIRED_FIELD_MISSING", "Invalid value for field Name"); c.class != ClassMissing || c.certainty < 0.85 {
		t.Errorf("decisive code lost to wording: %s %.2f", c.class, c.certainty)
	}
	if c := classify(scope{}, "503", "Service Unavailable: concurrent request limit exceeded, retry later"); c.class != ClassRateLimit {
		t.Errorf("quota behind a 503: %s", c.class)
	}
	if c := classify(scopeOf(DiagnosisRequest{ExternalSystem: "netsuite"}), "USER_ERROR", "The accounting period is closed."); c.class != ClassValue || !c.refusal {
		t.Errorf("closed period: %s, refusal %v", c.class, c.refusal)
	}
}
