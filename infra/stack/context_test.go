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
