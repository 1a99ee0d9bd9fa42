package dlp_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
)

// An AWS secret key pasted into an error message has no telling field name; its shape
// (40 characters, mixed case, digits and '/' or '+') is what gives it away.
func TestAWSSecretKeyInFreeText(t *testing.T) {
	s := dlp.NewScanner()
	cases := []struct {
		text string
		want bool
	}{
		{"sync failed with key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY for the bucket", true},
		{"credentials: wJalrXUtnFEMI+K7MDENG+bPxRfiCYEXAMPLEKEY", true},
		{"commit 3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39 broke the build", false},
		{"id QWxhZGRpbjpvcGVuIHNlc2FtZQabcdefghijklmn is not a secret", false},
		{"see docs/integrations/webshop/orders/v2/mapping.yaml line 4", false},
	}
	for _, tc := range cases {
		r, err := s.ScanText(dlp.AIPrompt, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Counts()[dlp.TypeAWSSecretAccessKey] > 0
		if got != tc.want {
			t.Errorf("%q: aws secret found=%v, want %v (findings %+v)", tc.text, got, tc.want, r.Findings)
		}
	}
}
