package session

import (
	"strings"
	"testing"
)

func TestParseToken(t *testing.T) {
	tok, err := newToken("acme")
	if err != nil {
		t.Fatal(err)
	}
	secret := tok[len("sat_acme_"):]
	cases := map[string]string{
		tok:                                             "acme",
		"sat_a_b-c_" + secret:                           "a_b-c",
		"sat_acme" + secret:                             "",
		"sat__" + secret:                                "",
		"sat_ACME_" + secret:                            "",
		"sat_acme_" + secret[:42]:                       "",
		"sat_acme_" + secret + "A":                      "",
		"sat_acme_" + secret[:42] + "B":                 "", // non-zero padding bits: not canonical base64
		"sat_acme_" + secret[:42] + "=":                 "",
		"sat_acme_" + secret[:42] + ".":                 "",
		"sk_acme_" + secret:                             "",
		"sat_acme#x_" + secret:                          "",
		"sat_" + strings.Repeat("a", 64) + "_" + secret: "",
		"": "",
	}
	for in, want := range cases {
		got, ok := parseToken(in)
		if got != want || ok != (want != "") {
			t.Errorf("parseToken(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestNewTokenRefusesABadTenant(t *testing.T) {
	for _, id := range []string{"", "ACME", "a#b", strings.Repeat("a", 64)} {
		if _, err := newToken(id); err == nil {
			t.Errorf("newToken(%q) succeeded", id)
		}
	}
}

func TestMixesClasses(t *testing.T) {
	for s, want := range map[string]bool{"abc": false, "ABC": false, "a-b_c": false, "aB": true, "a1": true, "9": true} {
		if mixesClasses(s) != want {
			t.Errorf("mixesClasses(%q) != %v", s, want)
		}
	}
}
