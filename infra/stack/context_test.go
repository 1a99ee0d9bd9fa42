package stack_test

import (
	"testing"

	"github.com/syncassist/syncassist/infra/stack"
)

func TestParseFlag(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      any
		want    bool
		wantErr bool
	}{
		{"absent", nil, false, false},
		{"empty", "", false, false},
		{"json true", true, true, false},
		{"json false", false, false, false},
		{"flag true", "true", true, false},
		{"flag false", "false", false, false},
		{"typo", "ture", false, true},
		{"number", 1.0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := stack.ParseFlag(tc.in)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("ParseFlag(%v) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// The stage's frame ancestors are exact https origins: a plain-http page must not frame a
// deployed console, and an entry that would end the frame-ancestors directive (';') or
// add a keyword must not reach the Content-Security-Policy.
func TestParseFrameAncestors(t *testing.T) {
	got, err := stack.ParseFrameAncestors("https://1234567.app.erp.example.com, HTTPS://B.example.com:8443")
	if err != nil || len(got) != 2 || got[0] != "https://1234567.app.erp.example.com" || got[1] != "https://b.example.com:8443" {
		t.Fatalf("good list: %v %v", got, err)
	}
	for _, bad := range []string{
		"http://erp.example.com",
		"http://localhost:5173",
		"https://erp.example.com;script-src",
		"https://erp.example.com'",
		"https://*.example.com",
		"https://erp.example.com/app",
		"'self'",
	} {
		if got, err := stack.ParseFrameAncestors(bad); err == nil {
			t.Errorf("%q accepted as %v", bad, got)
		}
	}
}
