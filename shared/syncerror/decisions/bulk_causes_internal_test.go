package decisions

import (
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// Failures group by what they say, not by their code alone: a bulk approve whose writes met
// a missing record and a spent rate budget (both write_back_failed) showed the first one's
// reason for all of them ("busy, approving again can succeed" over records that do not
// exist), seen in the browser suite.
func TestBulkCausesKeepDifferentReasonsApart(t *testing.T) {
	fail := func(id, detail string) BulkItem {
		return BulkItem{ID: id, Status: http.StatusBadGateway, Problem: httpapi.NewProblem(http.StatusBadGateway, "write_back_failed", detail)}
	}
	gone := "The target system did not accept the fix: hosterp answered NONEXISTENT_ID (HTTP 404): the record does not exist there."
	busy := "The target system did not accept the fix: hosterp: it was busy or could not be reached."
	causes := causesOf([]BulkItem{fail("a", gone), {ID: "ok", Status: http.StatusOK}, fail("b", busy), fail("c", gone), fail("d", gone)})
	if len(causes) != 2 {
		t.Fatalf("causes %+v, want the missing records and the busy one apart", causes)
	}
	if c := causes[0]; c.Detail != gone || c.Count != 3 || c.IDs[0] != "a" || c.IDs[2] != "d" {
		t.Errorf("first cause %+v, want the three missing records", c)
	}
	if c := causes[1]; c.Detail != busy || c.Count != 1 || c.IDs[0] != "b" {
		t.Errorf("second cause %+v, want the busy write", c)
	}
}
