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
		if len(codeEvidence(c.system, c.code, c.msg)) == 0 {
			t.Errorf("no code found in %+v", c)
		}
	}
	if ev := codeEvidence("", "", "Please enter value(s) for: Subsidiary"); len(ev) != 0 {
		t.Errorf("ordinary words taken for codes: %+v", ev)
	}
}

// TestRationaleNamesEvidenceAndSource: the rationale says which kind of evidence decided
// and where its meaning comes from.
func TestRationaleNamesEvidenceAndSource(t *testing.T) {
	for _, c := range []struct {
		system, code, msg string
		want              ErrorClass
		says              []string
	}{
		{"netsuite", "DUP_ENTITY", "This entity already exists.", ClassDuplicate,
			[]string{"decided by the code DUP_ENTITY", "docs.oracle.com", `the wording "already exists"`}},
		{"shipstation", "504", "", ClassConnection, []string{"decided by HTTP 504", "rfc9110"}},
		{"salesforce", "403", "API limit reached for this organization", ClassRateLimit,
			[]string{`decided by the wording "API or governance limit reached"`}},
		{"netsuite", "USER_ERROR", "The period is closed.", ClassValue,
			[]string{"The code USER_ERROR names no class by itself", "docs.oracle.com"}},
		{"", "", "something odd happened", ClassValue, []string{"lowest confidence"}},
	} {
		cl := classify(c.system, c.code, c.msg)
		var b strings.Builder
		cl.explain(&b)
		if cl.class != c.want {
			t.Errorf("%+v: class %s, want %s", c, cl.class, c.want)
		}
		for _, s := range c.says {
			if !strings.Contains(b.String(), s) {
				t.Errorf("%s %s: rationale lacks %q: %s", c.code, c.msg, s, b.String())
			}
		}
	}
}

// TestEvidenceOrder: a vendor's decisive code outweighs contrary wording; a quota named in
// words outweighs the status that carried it; refusals propose no format correction.
func TestEvidenceOrder(t *testing.T) {
	if c := classify("salesforce", "REQUIRED_FIELD_MISSING", "Invalid value for field Name"); c.class != ClassMissing || c.certainty < 0.85 {
		t.Errorf("decisive code lost to wording: %s %.2f", c.class, c.certainty)
	}
	if c := classify("", "503", "Service Unavailable: concurrent request limit exceeded, retry later"); c.class != ClassRateLimit {
		t.Errorf("quota behind a 503: %s", c.class)
	}
	if c := classify("netsuite", "USER_ERROR", "The accounting period is closed."); c.class != ClassValue || !c.refusal {
		t.Errorf("closed period: %s, refusal %v", c.class, c.refusal)
	}
}
