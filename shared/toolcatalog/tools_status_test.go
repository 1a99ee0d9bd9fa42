package toolcatalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

type seed struct {
	tenant, id   string
	status       syncerror.Status
	diagnosis    syncerror.Diagnosis
	class        string
	extSystem    string
	integration  string
	context      string
	payload      string
	applyError   string
	claimedAgo   time.Duration
	recordID     string
	confidence   float64
	errorIDInRow string
}

func (s seed) claim() syncerror.Claim {
	c := syncerror.Claim{
		TenantID: s.tenant, ID: s.id, Status: s.status, Diagnosis: s.diagnosis, ApplyError: s.applyError,
		ClaimedAt: t0.Add(-s.claimedAgo),
		Record: syncerror.Record{TenantID: s.tenant, ErrorID: "err-" + s.id, RecordType: "salesOrder",
			RecordID: s.recordID, ErrorCode: "INVALID_FLD_VALUE", Message: "Invalid value for field shipcountry",
			ExternalSystem: s.extSystem, Integration: s.integration},
	}
	if s.errorIDInRow != "" {
		c.Record.ErrorID = s.errorIDInRow
	}
	if s.recordID == "" {
		c.Record.RecordID = "SO-" + s.id
	}
	if s.context != "" {
		c.Record.Context = json.RawMessage(s.context)
	}
	if s.payload != "" {
		c.Record.Payload = json.RawMessage(s.payload)
	}
	if s.class != "" {
		c.Proposal = &syncerror.Proposal{Class: s.class, Confidence: s.confidence}
	}
	return c
}

// seedClaims gives tenant acme eight rows in most states and tenant globex one row whose
// ids say whose they are.
func seedClaims(t *testing.T, e *env) {
	t.Helper()
	rows := []seed{
		{tenant: "acme", id: "se1", status: syncerror.StatusPending, diagnosis: syncerror.DiagnosisReady, class: "value",
			confidence: 0.9, extSystem: "webshop", context: `{"customerId":"C-1"}`, claimedAgo: time.Hour},
		{tenant: "acme", id: "se2", status: syncerror.StatusPending, diagnosis: syncerror.DiagnosisFailed,
			integration: "crm-sync", payload: `{"customer":{"id":"C-2"}}`, claimedAgo: 2 * time.Hour},
		{tenant: "acme", id: "se3", status: syncerror.StatusApproved, diagnosis: syncerror.DiagnosisReady, class: "missing",
			confidence: 0.8, extSystem: "webshop", claimedAgo: 3 * time.Hour},
		{tenant: "acme", id: "se4", status: syncerror.StatusEscalated, diagnosis: syncerror.DiagnosisReady, class: "reference",
			confidence: 0.6, extSystem: "shipping", context: `{"order":{"customer_id":77}}`, claimedAgo: 30 * time.Minute},
		{tenant: "acme", id: "se5", status: syncerror.StatusApplying, diagnosis: syncerror.DiagnosisReady, class: "value",
			confidence: 0.7, claimedAgo: 10 * time.Minute},
		{tenant: "acme", id: "se6", status: syncerror.StatusPending, diagnosis: syncerror.DiagnosisReady, class: "value",
			confidence: 0.9, applyError: "hosterp answered 502", claimedAgo: 5 * time.Hour},
		{tenant: "acme", id: "se7", status: syncerror.StatusRetrying, diagnosis: syncerror.DiagnosisReady, class: "connection",
			confidence: 0.9, extSystem: "crm", claimedAgo: 6 * time.Hour},
		{tenant: "acme", id: "se8", status: syncerror.StatusResolved, diagnosis: syncerror.DiagnosisReady, class: "duplicate",
			confidence: 0.8, claimedAgo: 7 * time.Hour},
		{tenant: "globex", id: "g1", status: syncerror.StatusPending, diagnosis: syncerror.DiagnosisReady, class: "permission",
			extSystem: "webshop", context: `{"customerId":"C-1"}`, recordID: "GLOBEX-RECORD", errorIDInRow: "GLOBEX-ERROR",
			claimedAgo: time.Minute},
	}
	for _, r := range rows {
		if _, err := e.claims.Claim(context.Background(), r.claim()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIntegrationStatus(t *testing.T) {
	e := newEnv(t)
	seedClaims(t, e)
	ids := func(s toolcatalog.StatusSummary) []string {
		var out []string
		for _, it := range s.Items {
			out = append(out, it.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		args      map[string]any
		wantIDs   []string
		wantTotal int
	}{
		{"everything, newest first", map[string]any{}, []string{"se5", "se4", "se1", "se2", "se3", "se6", "se7", "se8"}, 8},
		{"retrying", map[string]any{"status": "retrying"}, []string{"se7"}, 1},
		{"resolved", map[string]any{"status": "resolved"}, []string{"se8"}, 1},
		{"one status", map[string]any{"status": "pending"}, []string{"se1", "se2", "se6"}, 3},
		{"external system, any case", map[string]any{"sourceSystem": "WEBSHOP"}, []string{"se1", "se3"}, 2},
		{"integration", map[string]any{"sourceSystem": "crm-sync"}, []string{"se2"}, 1},
		{"customer in context", map[string]any{"customerId": "C-1"}, []string{"se1"}, 1},
		{"customer as a number, nested", map[string]any{"customerId": "77"}, []string{"se4"}, 1},
		{"customer object in payload", map[string]any{"customerId": "C-2"}, []string{"se2"}, 1},
		{"limit lists fewer, counts all", map[string]any{"limit": 2}, []string{"se5", "se4"}, 8},
		{"nothing matches", map[string]any{"status": "rejected"}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.rawCall(t, operatorA, toolcatalog.ToolIntegrationStatus, tc.args, nil)
			if res.Result.IsError {
				t.Fatalf("isError: %s", res.body)
			}
			if strings.Contains(string(res.body), "GLOBEX") || strings.Contains(string(res.body), "g1") {
				t.Fatalf("another tenant's row in the answer: %s", res.body)
			}
			s := decode[toolcatalog.StatusSummary](t, res.Result.StructuredContent)
			if !slices.Equal(ids(s), tc.wantIDs) || s.Total != tc.wantTotal || s.TenantID != "acme" {
				t.Errorf("items %v total %d, want %v total %d", ids(s), s.Total, tc.wantIDs, tc.wantTotal)
			}
		})
	}
	t.Run("counts and health", func(t *testing.T) {
		s := decode[toolcatalog.StatusSummary](t, e.rawCall(t, operatorA, toolcatalog.ToolIntegrationStatus, map[string]any{}, nil).Result.StructuredContent)
		wantStatus := map[string]int{"pending": 3, "retrying": 1, "applying": 1, "approved": 1, "rejected": 0, "escalated": 1,
			"resolved": 1, "reverted": 0}
		wantClass := map[string]int{"value": 3, "undiagnosed": 1, "missing": 1, "reference": 1, "connection": 1, "duplicate": 1}
		wantDiag := map[string]int{"queued": 0, "diagnosing": 0, "ready": 7, "failed": 1}
		if fmt.Sprint(s.ByStatus) != fmt.Sprint(wantStatus) || fmt.Sprint(s.ByClass) != fmt.Sprint(wantClass) ||
			fmt.Sprint(s.ByDiagnosis) != fmt.Sprint(wantDiag) {
			t.Errorf("byStatus %v byClass %v byDiagnosis %v", s.ByStatus, s.ByClass, s.ByDiagnosis)
		}
		h := s.Health
		if h.State != "attention" || h.AwaitingDecision != 1 || h.DiagnosisFailed != 1 || h.WriteBackFailed != 1 || h.InFlight != 1 ||
			h.Retrying != 1 {
			t.Errorf("health %+v", h)
		}
		// A system refusing deliveries for now is not healthy, though no person is needed yet.
		crm := decode[toolcatalog.StatusSummary](t, e.rawCall(t, operatorA, toolcatalog.ToolIntegrationStatus,
			map[string]any{"sourceSystem": "crm"}, nil).Result.StructuredContent).Health
		if crm.State != "degraded" || crm.Retrying != 1 {
			t.Errorf("crm's health %+v, want degraded with one retrying", crm)
		}
		it := s.Items[1]
		if it.ID != "se4" || it.ErrorID != "err-se4" || it.RecordType != "salesOrder" || it.RecordID != "SO-se4" ||
			it.ErrorCode != "INVALID_FLD_VALUE" || it.Status != "escalated" || it.Diagnosis != "ready" ||
			it.Class != "reference" || it.Confidence != 0.6 || it.ClaimedAt != "2026-11-22T09:30:00.000Z" {
			t.Errorf("item %+v", it)
		}
	})
	t.Run("the other tenant sees only its row", func(t *testing.T) {
		s := decode[toolcatalog.StatusSummary](t, e.rawCall(t, operatorB, toolcatalog.ToolIntegrationStatus,
			map[string]any{"customerId": "C-1"}, nil).Result.StructuredContent)
		if s.Total != 1 || s.Items[0].ID != "g1" || s.TenantID != "globex" {
			t.Errorf("globex sees %+v", s)
		}
	})
}

// Counting pages through every status listing, and stops at 1,000 rows per status.
func TestIntegrationStatusPagesAndBounds(t *testing.T) {
	e := newEnv(t)
	for i := range 1050 {
		s := seed{tenant: "acme", id: fmt.Sprintf("p%04d", i), status: syncerror.StatusPending,
			diagnosis: syncerror.DiagnosisQueued, claimedAgo: time.Duration(i) * time.Second}
		if i < 250 {
			s.status = syncerror.StatusRejected
		}
		if _, err := e.claims.Claim(context.Background(), s.claim()); err != nil {
			t.Fatal(err)
		}
	}
	s := decode[toolcatalog.StatusSummary](t, e.rawCall(t, operatorA, toolcatalog.ToolIntegrationStatus,
		map[string]any{"limit": 100}, nil).Result.StructuredContent)
	if s.ByStatus["rejected"] != 250 || s.ByStatus["pending"] != 800 || s.Truncated || len(s.Items) != 100 {
		t.Errorf("byStatus %v truncated %v items %d", s.ByStatus, s.Truncated, len(s.Items))
	}
	for i := range 300 {
		st := seed{tenant: "acme", id: fmt.Sprintf("q%04d", i), status: syncerror.StatusPending,
			diagnosis: syncerror.DiagnosisQueued, claimedAgo: time.Hour + time.Duration(i)*time.Second}
		_, _ = e.claims.Claim(context.Background(), st.claim())
	}
	s = decode[toolcatalog.StatusSummary](t, e.rawCall(t, operatorA, toolcatalog.ToolIntegrationStatus,
		map[string]any{"status": "pending"}, nil).Result.StructuredContent)
	if !s.Truncated || s.ByStatus["pending"] != 1000 {
		t.Errorf("1,100 pending rows: counted %d, truncated %v", s.ByStatus["pending"], s.Truncated)
	}
}

func TestIntegrationStatusStoreFailure(t *testing.T) {
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.Claims = failingClaims{} })
	res := e.rawCall(t, operatorA, toolcatalog.ToolIntegrationStatus, map[string]any{}, nil)
	if !res.Result.IsError || !strings.Contains(string(res.body), "temporarily_unavailable") ||
		strings.Contains(string(res.body), "connection reset") {
		t.Errorf("answer %s", res.body)
	}
	if recs := e.callRecords(); len(recs) != 1 || recs[0].Result != audit.ResultFailure {
		t.Errorf("records %+v", recs)
	}
}

type failingClaims struct{}

func (failingClaims) List(context.Context, string, syncerror.ListQuery) (syncerror.Page, error) {
	return syncerror.Page{}, errors.New("dynamodb: connection reset")
}
