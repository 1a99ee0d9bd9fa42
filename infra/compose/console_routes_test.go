package compose_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
)

// readyClaim stores a pending claim whose diagnosis proposes shipcountry -> DE for record.
func (f *flow) readyClaim(t testing.TB, errorID, recordID string) string {
	t.Helper()
	ctx := context.Background()
	c := syncerror.NewClaim(syncerror.Record{TenantID: "demo", ErrorID: errorID, RecordType: "salesOrder", RecordID: recordID,
		ErrorCode: "INVALID_FLD_VALUE", Message: "Invalid shipcountry", OccurredAt: fixtureTime}, syncerror.SourceWebhook, "msg-"+errorID, fixtureTime)
	if _, err := f.deps.Claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	row, err := f.deps.Claims.BeginDiagnosis(ctx, "demo", c.ID, fixtureTime, fixtureTime)
	if err != nil {
		t.Fatal(err)
	}
	p := syncerror.Proposal{Class: "value", Summary: "country as ISO code", Confidence: 0.9, DiagnosedAt: fixtureTime,
		Fix: []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}}
	if err := f.deps.Claims.CompleteDiagnosis(ctx, "demo", c.ID, row.DiagnosisAttempts, p, fixtureTime); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func TestProposalGroupsAndBulkDecisions(t *testing.T) {
	f := newFlow(t)
	f.erp.Seed("salesOrder", "SO-2", map[string]any{"shipcountry": "Deutschland"})
	a := f.readyClaim(t, "ERR-G-1", "SO-10042")
	b := f.readyClaim(t, "ERR-G-2", "SO-2")
	c := f.readyClaim(t, "ERR-G-3", "SO-3")

	w := f.call(t, operator, "GET", "/api/sync-error-assist/proposal-groups?status=pending", "")
	var groups decisions.GroupList
	if err := json.Unmarshal(w.Body.Bytes(), &groups); w.Code != 200 || err != nil {
		t.Fatalf("groups: %d %s", w.Code, w.Body)
	}
	if len(groups.Items) != 1 || groups.Items[0].Count != 3 || groups.Items[0].Class != "value" || groups.Scanned != 3 || groups.Truncated {
		t.Fatalf("groups %+v", groups)
	}
	if len(groups.Items[0].RecordIDs) != 3 || groups.NeedsPerson.Count != 0 {
		t.Fatalf("groups %+v", groups)
	}
	// The listing's filters apply: another class or system groups nothing, a bad since is
	// refused.
	w = f.call(t, operator, "GET", "/api/sync-error-assist/proposal-groups?status=pending&class=missing", "")
	if !strings.Contains(w.Body.String(), `"items":[]`) || !strings.Contains(w.Body.String(), `"scanned":0`) {
		t.Fatalf("class filter ignored: %d %s", w.Code, w.Body)
	}
	w = f.call(t, operator, "GET", "/api/sync-error-assist/proposal-groups?status=pending&system=webshop", "")
	if !strings.Contains(w.Body.String(), `"items":[]`) || !strings.Contains(w.Body.String(), `"scanned":0`) {
		t.Fatalf("system filter ignored: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, operator, "GET", "/api/sync-error-assist/proposal-groups?since=yesterday", ""); w.Code != 400 {
		t.Fatalf("bad since: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, "operator@other", "GET", "/api/sync-error-assist/proposal-groups", ""); !strings.Contains(w.Body.String(), `"items":[]`) {
		t.Fatalf("another tenant sees groups: %s", w.Body)
	}

	body := `{"action":"approve","fixKeys":["` + groups.Items[0].Key + `"],"ids":["` + a + `","` + b + `","` + c + `","se_aaaaaaaaaaaaaaaaaaaaaaaaaa"]}`
	// Operators reach bulk approve; a policy that gives every fix to approvers refuses each item.
	if w := f.call(t, "admin@demo", "PUT", "/api/settings/approval-policy", `{"version":0,"rules":[{"id":"approvers","match":{},"apply":"approver"}]}`); w.Code != 200 {
		t.Fatalf("policy: %d %s", w.Code, w.Body)
	}
	var res decisions.BulkResult
	w = f.call(t, operator, "POST", "/api/sync-error-assist/proposals/bulk", body)
	if err := json.Unmarshal(w.Body.Bytes(), &res); w.Code != 200 || err != nil || res.Failed != 4 || res.Results[0].Status != 403 ||
		res.Results[0].Problem.Code != "approval_not_allowed" {
		t.Fatalf("operator bulk approve: %d %s", w.Code, w.Body)
	}
	w = f.call(t, approver, "POST", "/api/sync-error-assist/proposals/bulk", body)
	if err := json.Unmarshal(w.Body.Bytes(), &res); w.Code != 200 || err != nil {
		t.Fatalf("bulk: %d %s", w.Code, w.Body)
	}
	// SO-3 does not exist in the ERP, so its write-back fails; the unknown id is not found.
	want := []struct {
		status  int
		outcome string
	}{{200, "approved"}, {200, "approved"}, {502, "failed"}, {404, "failed"}}
	for i, it := range res.Results {
		if it.Status != want[i].status || it.Outcome != want[i].outcome {
			t.Errorf("item %d (%s): %d %s %+v, want %d %s", i, it.ID, it.Status, it.Outcome, it.Problem, want[i].status, want[i].outcome)
		}
	}
	if res.Succeeded != 2 || res.Failed != 2 || f.erp.WriteCount() != 2 {
		t.Fatalf("succeeded %d failed %d, ERP writes %d", res.Succeeded, res.Failed, f.erp.WriteCount())
	}
	if f.row(t, a).Status != syncerror.StatusApproved || f.row(t, c).Status != syncerror.StatusPending {
		t.Fatalf("rows: %s %s", f.row(t, a).Status, f.row(t, c).Status)
	}

	if w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/bulk", `{"action":"reject","ids":["`+c+`"]}`); w.Code != 400 ||
		!strings.Contains(w.Body.String(), `"field":"reason"`) {
		t.Fatalf("reject without reason: %d %s", w.Code, w.Body)
	}
	w = f.call(t, approver, "POST", "/api/sync-error-assist/proposals/bulk", `{"action":"reject","reason":"not ours","ids":["`+c+`","`+a+`"]}`)
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || res.Results[0].Outcome != "rejected" || res.Results[1].Status != 409 {
		t.Fatalf("bulk reject: %s", w.Body)
	}
}

func TestAITracesAndCostsOfASyncError(t *testing.T) {
	f := newFlow(t)
	id := f.diagnosed(t)
	if w := f.call(t, operator, "GET", "/api/ai/traces?claimId="+id, ""); w.Code != 403 {
		t.Fatalf("operator reads traces: %d", w.Code)
	}
	var traces struct {
		Items      []map[string]any `json:"items"`
		NextCursor *string          `json:"nextCursor"`
	}
	w := f.call(t, approver, "GET", "/api/ai/traces?claimId="+id, "")
	if err := json.Unmarshal(w.Body.Bytes(), &traces); w.Code != 200 || err != nil || len(traces.Items) != 1 || traces.NextCursor != nil {
		t.Fatalf("traces: %d %s", w.Code, w.Body)
	}
	if traces.Items[0]["claimId"] != id && !strings.HasPrefix(traces.Items[0]["inferenceId"].(string), id) {
		t.Fatalf("trace of another claim: %v", traces.Items[0])
	}
	var costs struct {
		Items      []map[string]any `json:"items"`
		NextCursor *string          `json:"nextCursor"`
		TotalUSD   *float64         `json:"totalUsd"`
	}
	w = f.call(t, approver, "GET", "/api/ai/costs?claimId="+id+"&limit=1", "")
	if err := json.Unmarshal(w.Body.Bytes(), &costs); w.Code != 200 || err != nil || len(costs.Items) != 1 || costs.NextCursor == nil || costs.TotalUSD == nil {
		t.Fatalf("costs page 1: %d %s", w.Code, w.Body)
	}
	w = f.call(t, approver, "GET", "/api/ai/costs?claimId="+id+"&limit=1&cursor="+*costs.NextCursor, "")
	if err := json.Unmarshal(w.Body.Bytes(), &costs); w.Code != 200 || err != nil || len(costs.Items) != 1 || costs.NextCursor != nil {
		t.Fatalf("costs page 2 (suggest and assessQuality make two records): %d %s", w.Code, w.Body)
	}
	if w := f.call(t, "approver@other", "GET", "/api/ai/traces?claimId="+id, ""); !strings.Contains(w.Body.String(), `"items":[]`) {
		t.Fatalf("another tenant reads the trace: %s", w.Body)
	}
	for _, q := range []string{"", "?claimId=nope", "?claimId=" + id + "&limit=0", "?claimId=" + id + "&cursor=bogus"} {
		if w := f.call(t, approver, "GET", "/api/ai/traces"+q, ""); w.Code != 400 {
			t.Errorf("traces%s: %d, want 400", q, w.Code)
		}
	}
}

// A write-back the host ERP refuses for a record it does not have says so, with the
// system's own code, and that approving again cannot help; the row shows it in the queue.
func TestWriteBackFailureExplainsTheTargetsAnswer(t *testing.T) {
	f := newFlow(t)
	id := f.readyClaim(t, "ERR-NOREC-1", "SO-NOT-THERE")
	w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", "")
	var p struct {
		Code   string
		Detail string
		Target *struct {
			System    string
			Status    int
			Code      string
			Retryable bool
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || w.Code != 502 || p.Code != "write_back_failed" {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if p.Target == nil || p.Target.System != "hosterp" || p.Target.Status != 404 || p.Target.Code == "" || p.Target.Retryable {
		t.Fatalf("target %+v in %s", p.Target, w.Body)
	}
	if !strings.Contains(p.Detail, "does not exist there") || !strings.Contains(p.Detail, "approving again cannot help") {
		t.Fatalf("detail %q", p.Detail)
	}
	list := f.call(t, operator, "GET", "/api/sync-error-assist/proposals?status=pending", "")
	if !strings.Contains(list.Body.String(), `"applyError":"hosterp answered `+p.Target.Code) {
		t.Fatalf("the queue does not mark the failed row: %s", list.Body)
	}
}
