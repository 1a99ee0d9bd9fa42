package session

import (
	"strings"
	"testing"
)

func TestParseToken(t *testing.T) {
	// A secret that starts with '_' makes "one character too many" a well-formed token of
	// tenant "acme_" (tenant ids may hold '_'): the parse is by shape, and the store's hash
	// lookup refuses it. The cases below want a secret whose first character is not '_'.
	var tok, secret string
	for secret == "" || secret[0] == '_' {
		var err error
		if tok, err = newToken("acme"); err != nil {
			t.Fatal(err)
		}
		secret = tok[len("sat_acme_"):]
	}
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
