package governance_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
)

// A write whose caller's own row decides whether it is still wanted is released by retry:
// the release approves it and writes nothing. Holds stored before their callers set
// ReleaseByRetry lack the flag and are known by their reason (the sync-error fix writer's
// "approve", the sync-error retry's "syncerror.retry_request", finance's
// "finance.approve"). A flow's run ("flow.run") sets the flag: the held run writes it once
// approved (flow's held.go); a flow hold stored before it did lacks the flag, and its
// release writes it, as does any other write's.
func TestWhichReleasesWriteTheHeldWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reason  string
		flag    bool
		written bool
	}{
		{"approve", false, false}, {"syncerror.retry_request", false, false}, {"finance.approve", false, false},
		{"flow.run", true, false}, {"flow.run", false, true}, {"test.write", false, true},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := req(crm, crm, "contact", "C-1", map[string]any{"marketingOptIn": true})
			r.Reason, r.ReleaseByRetry = tc.reason, tc.flag
			res, err := e.write(operator("t1"), r)
			if !errors.Is(err, governance.ErrPendingApproval) {
				t.Fatalf("hold: %v", err)
			}
			h := e.api()
			listed := decodeList(t, serve(h, http.MethodGet, "/api/governance/approvals", approverT1))
			w := serve(h, http.MethodPost, "/api/governance/approvals/"+res.Held.ID+"/approve", approverT1)
			var item map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &item); err != nil || w.Code != http.StatusOK || item["status"] != "approved" {
				t.Fatalf("release: %d %s", w.Code, w.Body)
			}
			if got := e.fakes[crm].WriteCount(); got != map[bool]int{true: 1, false: 0}[tc.written] {
				t.Fatalf("the release made %d writes; written by the release: %v", got, tc.written)
			}
			msg, _ := item["message"].(string)
			if byRetry := !tc.written; item["releaseByRetry"] != map[bool]any{true: true, false: nil}[byRetry] ||
				listed.Items[0]["releaseByRetry"] != item["releaseByRetry"] || byRetry != strings.Contains(msg, "wrote nothing") {
				t.Fatalf("the listing (%v) and the release's answer (%s) do not say whether the release writes", listed.Items[0], w.Body)
			}
			// The caller's next decision writes it, once, under the released approval.
			if _, err := e.write(operator("t1"), r); err != nil || e.fakes[crm].WriteCount() != 1 {
				t.Fatalf("the retry after the release: %v, %d writes", err, e.fakes[crm].WriteCount())
			}
		})
	}
}
