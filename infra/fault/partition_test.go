package fault

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The proxy holds the hot tenant to its limit, answers as DynamoDB does, lets everyone
// else through, draws a write from the table's indexes too, and refills with time.
func TestPartitionThrottle(t *testing.T) {
	var reached atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer backend.Close()
	p, err := StartPartitionThrottle(backend.URL, "hot", 6, 3, map[string][]string{"claims": {"by_status"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	now := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return now }
	send := func(op, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, p.URL(), strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Type string `json:"__type"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out.Type
	}
	put := func(tenant string) string {
		return `{"TableName":"st-claims","Item":{"tenant_id":{"S":"` + tenant + `"},"id":{"S":"x"}}}`
	}
	// 3 WCU a second: three puts pass, the fourth is refused by the table's bucket.
	for i := range 3 {
		if code, _ := send("PutItem", put("hot")); code != http.StatusOK {
			t.Fatalf("put %d: %d", i, code)
		}
	}
	code, kind := send("PutItem", put("hot"))
	if code != http.StatusBadRequest || !strings.HasSuffix(kind, "#ProvisionedThroughputExceededException") {
		t.Fatalf("fourth put: %d %q, want 400 ProvisionedThroughputExceededException", code, kind)
	}
	if _, _, by := p.counts(); by["st-claims"] != 1 {
		t.Errorf("refused by %v", by)
	}
	// Each put drew on the index's write bucket too.
	if b := p.buckets["st-claims/by_status|w"]; b == nil || b.tokens != 0 {
		t.Errorf("the index's write bucket: %+v", b)
	}
	// Another tenant, and the hot tenant's reads (their own bucket), pass.
	if code, _ := send("PutItem", put("cold")); code != http.StatusOK {
		t.Errorf("cold put: %d", code)
	}
	q := `{"TableName":"st-claims","IndexName":"by_status","ExpressionAttributeValues":{":k":{"S":"hot#pending"}}}`
	if code, _ := send("Query", q); code != http.StatusOK {
		t.Errorf("hot query: %d", code)
	}
	var kinds []string
	for range 3 {
		_, kind := send("PutItem", put("hot"))
		kinds = append(kinds, kind)
	}
	if !strings.HasSuffix(kinds[2], "#ThrottlingException") { // every fourth refusal
		t.Errorf("refusals answered %v", kinds)
	}
	now = now.Add(time.Second)
	if code, _ := send("PutItem", put("hot")); code != http.StatusOK {
		t.Errorf("after a second's refill: %d", code)
	}
	throttled, passed, _ := p.counts()
	if throttled["hot"] != 4 || throttled["other"] != 0 || passed["other"] != 1 || passed["hot"] != 5 {
		t.Errorf("throttled %v, passed %v", throttled, passed)
	}
	if int(reached.Load()) != 6 {
		t.Errorf("%d requests reached the emulator, want the 6 that passed", reached.Load())
	}
	// Lifted, the fault is over: the hot tenant's requests pass however many, until the
	// limits are set again.
	p.Lift()
	for i := range 10 {
		if code, _ := send("PutItem", put("hot")); code != http.StatusOK {
			t.Fatalf("lifted, put %d: %d", i, code)
		}
	}
	p.SetLimits(6, 3)
	if code, _ := send("PutItem", put("hot")); code != http.StatusBadRequest {
		t.Errorf("limits set again, an emptied bucket: %d, want 400", code)
	}
}
