package syncerror_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Messages that differ only in numbers and ids normalise alike; other words do not.
func TestNormalizeMessage(t *testing.T) {
	a := syncerror.NormalizeMessage("Invalid value on line 3 (request 7f3a9c21-0b4e-4d2a-9c1e-1234567890ab, amount 12.50)")
	b := syncerror.NormalizeMessage("Invalid  value on line 17 (request 0a1b2c3d-0b4e-4d2a-9c1e-ffffffffffff, amount 9,99)")
	if a != b {
		t.Fatalf("%q != %q", a, b)
	}
	if syncerror.NormalizeMessage("Invalid value for shipcountry") == syncerror.NormalizeMessage("Invalid value for shipzip") {
		t.Fatal("different fields normalised alike")
	}
}
