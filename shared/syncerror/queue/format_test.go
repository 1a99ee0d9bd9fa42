package queue_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// A format the listing does not have is refused like any other bad filter value, not
// answered as JSON (issue 36 §2: the fuzz's format=AAA).
func TestListRefusesAnUnknownFormat(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	for _, format := range []string{"AAA", "CSV", "xml"} {
		if w := f.Call(t, "acme", "GET", "/p?format="+format, ""); w.Code != 400 || roomtest.ProblemCode(t, w) != "invalid_query" {
			t.Fatalf("format=%s: %d %s", format, w.Code, w.Body)
		}
	}
	for _, format := range []string{"", "json"} {
		if w := f.Call(t, "acme", "GET", "/p?format="+format, ""); w.Code != 200 {
			t.Fatalf("format=%s: %d %s", format, w.Code, w.Body)
		}
	}
}
