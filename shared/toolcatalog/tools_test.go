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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dlp/dlptest"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
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

type govAnswer struct {
	Decision string               `json:"decision"`
	Executed bool                 `json:"executed"`
	Reasons  []toolcatalog.Reason `json:"reasons"`
	Loop     struct {
		Checked           bool   `json:"checked"`
		Detected          bool   `json:"detected"`
		BreakingCondition string `json:"breakingCondition"`
	} `json:"loop"`
	Ownership struct {
		Checked bool                         `json:"checked"`
		Fields  []toolcatalog.FieldOwnership `json:"fields"`
		Dropped []string                     `json:"dropped"`
	} `json:"ownership"`
	DLP struct {
		Blocked  bool                    `json:"blocked"`
		Counts   []toolcatalog.TypeCount `json:"counts"`
		Findings []toolcatalog.Finding   `json:"findings"`
	} `json:"dlp"`
}

func (a govAnswer) codes() []string {
	var out []string
	for _, r := range a.Reasons {
		out = append(out, r.Code)
	}
	return out
}

func TestGovernanceCheckDecisions(t *testing.T) {
	e := newEnv(t)
	hash, _ := governance.PayloadHash(map[string]any{"price": 10})
	for _, le := range []governance.LedgerEntry{
		{Time: t0.Add(-time.Minute), Tenant: "acme", Source: connector.SystemERP2, Target: connector.SystemCRM,
			Entity: "priceList", RecordID: "PL-1", Fields: []string{"price"}, PayloadHash: hash},
		{Time: t0.Add(-10 * time.Minute), Tenant: "acme", Source: connector.SystemERP2, Target: connector.SystemCRM,
			Entity: "priceList", RecordID: "PL-old", Fields: []string{"price"}, PayloadHash: hash},
		{Time: t0.Add(-time.Minute), Tenant: "globex", Source: connector.SystemERP2, Target: connector.SystemCRM,
			Entity: "priceList", RecordID: "PL-2", Fields: []string{"price"}, PayloadHash: hash},
	} {
		if err := e.ledger.Append(context.Background(), le); err != nil {
			t.Fatal(err)
		}
	}
	write := func(entity, record string, fields map[string]any) map[string]any {
		return map[string]any{"entity": entity, "recordId": record, "fields": fields}
	}
	for _, tc := range []struct {
		name     string
		args     map[string]any
		decision string
		code     string
	}{
		{"allow: the owner writes its own field", map[string]any{"input": write("customer", "C-1",
			map[string]any{"email": "jane.doe@example.com"}), "sourceSystem": "crm", "targetSystem": "hosterp"},
			toolcatalog.DecisionAllow, "allowed"},
		{"deny: reject_with_alert field of another system", map[string]any{"input": write("customer", "C-1",
			map[string]any{"creditLimit": 5000}), "sourceSystem": "crm", "targetSystem": "hosterp"},
			toolcatalog.DecisionDeny, "ownership_rejected"},
		{"require_approval: consent flag", map[string]any{"input": write("contact", "K-1",
			map[string]any{"marketingOptIn": true, "title": "CFO"}), "sourceSystem": "crm", "targetSystem": "crm"},
			toolcatalog.DecisionRequireApproval, "ownership_approval_required"},
		{"allow_with_drops: source_wins fields", map[string]any{"input": write("customer", "C-1",
			map[string]any{"email": "a@example.com", "phone": "+1 415 555 2671", "creditLimit": 100}),
			"sourceSystem": "hosterp", "targetSystem": "crm"}, toolcatalog.DecisionAllowWithDrops, "ownership_fields_dropped"},
		{"deny: every field dropped", map[string]any{"input": write("item", "I-1", map[string]any{"price": 10}),
			"sourceSystem": "erp2", "targetSystem": "hosterp"}, toolcatalog.DecisionDeny, "all_fields_dropped"},
		{"deny: loop, same payload", map[string]any{"input": write("priceList", "PL-1", map[string]any{"price": 10}),
			"sourceSystem": "crm", "targetSystem": "erp2"}, toolcatalog.DecisionDeny, "loop_detected"},
		{"deny: loop, ping-pong of the same fields", map[string]any{"input": write("priceList", "PL-1", map[string]any{"price": 12}),
			"sourceSystem": "crm", "targetSystem": "erp2"}, toolcatalog.DecisionDeny, "loop_detected"},
		{"allow: the reciprocal write is outside the window", map[string]any{"input": write("priceList", "PL-old",
			map[string]any{"price": 10}), "sourceSystem": "crm", "targetSystem": "erp2"}, toolcatalog.DecisionAllow, "allowed"},
		{"allow: another tenant's ledger is not ours", map[string]any{"input": write("priceList", "PL-2",
			map[string]any{"price": 10}), "sourceSystem": "crm", "targetSystem": "erp2"}, toolcatalog.DecisionAllow, "allowed"},
		{"deny: DLP blocks card data", map[string]any{"input": write("opportunity", "O-1",
			map[string]any{"note": "card " + dlptest.CardNumber}), "sourceSystem": "crm", "targetSystem": "crm"},
			toolcatalog.DecisionDeny, "dlp_blocked"},
		{"deny: unknown system", map[string]any{"input": write("priceList", "PL-9", map[string]any{"price": 1}),
			"sourceSystem": "netsuite", "targetSystem": "crm"}, toolcatalog.DecisionDeny, "unknown_system"},
		{"require_approval: owned fields, no source named", map[string]any{"input": write("customer", "C-1",
			map[string]any{"creditLimit": 1})}, toolcatalog.DecisionRequireApproval, "source_unknown"},
		{"other shapes get the DLP scan only", map[string]any{"input": map[string]any{"action": "send newsletter",
			"to": "jane.doe@example.com"}}, toolcatalog.DecisionAllow, "shape_not_recognised"},
		{"systems may sit inside input", map[string]any{"input": map[string]any{"entity": "customer", "recordId": "C-1",
			"fields": map[string]any{"creditLimit": 1}, "sourceSystem": "CRM", "targetSystem": "hosterp"}},
			toolcatalog.DecisionDeny, "ownership_rejected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.rawCall(t, operatorA, toolcatalog.ToolGovernanceCheck, tc.args, nil)
			if res.Result.IsError {
				t.Fatalf("isError: %s", res.body)
			}
			a := decode[govAnswer](t, res.Result.StructuredContent)
			if a.Decision != tc.decision || !slices.Contains(a.codes(), tc.code) || a.Executed {
				t.Errorf("decision %s %v, want %s with %s\n%s", a.Decision, a.codes(), tc.decision, tc.code, res.Result.StructuredContent)
			}
		})
	}
	t.Run("details of the drops and the loop", func(t *testing.T) {
		a := decode[govAnswer](t, e.rawCall(t, operatorA, toolcatalog.ToolGovernanceCheck, map[string]any{
			"input":        write("customer", "C-1", map[string]any{"email": "a@example.com", "phone": "+1 415 555 2671", "creditLimit": 100}),
			"sourceSystem": "hosterp", "targetSystem": "crm"}, nil).Result.StructuredContent)
		if !slices.Equal(a.Ownership.Dropped, []string{"email", "phone"}) || !a.Ownership.Checked {
			t.Errorf("ownership %+v", a.Ownership)
		}
		a = decode[govAnswer](t, e.rawCall(t, operatorA, toolcatalog.ToolGovernanceCheck, map[string]any{
			"input": write("priceList", "PL-1", map[string]any{"price": 10}), "sourceSystem": "crm", "targetSystem": "erp2"},
			nil).Result.StructuredContent)
		if !a.Loop.Detected || !strings.Contains(a.Loop.BreakingCondition, "same payload hash as erp2→crm") {
			t.Errorf("loop %+v", a.Loop)
		}
	})
	t.Run("nothing is recorded but the call", func(t *testing.T) {
		if n := e.ledger.Len(); n != 3 {
			t.Errorf("ledger has %d entries; a check must not write", n)
		}
		for _, r := range e.audits.All() {
			if r.ActionKey != toolcatalog.ActionKeyCall && r.ActionKey != "dlp.scan" {
				t.Errorf("unexpected audit record %s", r.ActionKey)
			}
		}
	})
}

var (
	awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	card      = "4111 1111 1111 1111"
)

// Secrets in governance_check input and in field_mapping sampleData are reported masked,
// and appear nowhere in the bytes sent back or in the audit log.
func TestSecretsAreReportedMaskedAndNeverEchoed(t *testing.T) {
	e := newEnv(t)
	secrets := []string{awsSecret, card, strings.ReplaceAll(card, " ", ""), dlptest.JWT}
	check := func(t *testing.T, raw []byte, findings []toolcatalog.Finding, wantTypes ...string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(string(raw), s) {
				t.Errorf("the response echoes %.8s…", s)
			}
		}
		var types []string
		for _, f := range findings {
			types = append(types, f.Type)
			if f.Sample == "" || f.Path == "" || f.Confidence <= 0 || !strings.Contains(f.Sample, "*") {
				t.Errorf("finding %+v", f)
			}
		}
		for _, w := range wantTypes {
			if !slices.Contains(types, w) {
				t.Errorf("findings %v lack %s", types, w)
			}
		}
	}
	t.Run("governance_check", func(t *testing.T) {
		res := e.rawCall(t, operatorA, toolcatalog.ToolGovernanceCheck, map[string]any{
			"input": map[string]any{"entity": "opportunity", "recordId": "O-7", "fields": map[string]any{
				"aws_secret_access_key": awsSecret, "paymentCard": card, "authToken": dlptest.JWT,
				"note": "rotate " + awsSecret, awsSecret: "a secret as a field name"}},
			"sourceSystem": "crm", "targetSystem": "crm", "userId": "agent-7"}, nil)
		a := decode[govAnswer](t, res.Result.StructuredContent)
		if a.Decision != toolcatalog.DecisionDeny || !a.DLP.Blocked {
			t.Errorf("decision %s blocked %v", a.Decision, a.DLP.Blocked)
		}
		check(t, res.body, a.DLP.Findings, dlp.TypeAWSSecretAccessKey, dlp.TypeCardNumber, dlp.TypeJWT)
	})
	t.Run("field_mapping_suggest sampleData", func(t *testing.T) {
		res := e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, map[string]any{
			"sourceSystem": "webshop", "targetSystem": "hosterp",
			"sourceFields": []map[string]any{{"name": "secretKey", "type": "string"}, {"name": "cardNumber", "type": "string"},
				{"name": "sessionToken", "type": "string"}, {"name": "email", "type": "string"}},
			"targetFields": []map[string]any{{"name": "emailAddress", "type": "email"}, {"name": "paymentCard", "type": "string"}},
			"sampleData": []map[string]any{{"secretKey": awsSecret, "cardNumber": card, "sessionToken": dlptest.JWT,
				"email": "jane.doe@example.com"}},
		}, nil)
		type answer struct {
			Suggestions []toolcatalog.Suggestion `json:"suggestions"`
			SampleData  struct {
				Findings []toolcatalog.Finding `json:"findings"`
			} `json:"sampleData"`
		}
		out := decode[answer](t, res.Result.StructuredContent)
		check(t, res.body, out.SampleData.Findings, dlp.TypeAWSSecretAccessKey, dlp.TypeCardNumber, dlp.TypeJWT, dlp.TypeEmail)
		if strings.Contains(string(res.body), "jane.doe@example.com") {
			t.Error("a sample email is echoed")
		}
		if len(out.Suggestions) == 0 || out.Suggestions[0].SourceField != "email" {
			t.Errorf("suggestions %+v", out.Suggestions)
		}
	})
	t.Run("a secret as an argument name", func(t *testing.T) {
		res := e.rawCall(t, operatorA, toolcatalog.ToolGovernanceCheck, map[string]any{"input": map[string]any{}, awsSecret: 1}, nil)
		if !res.Result.IsError || !strings.Contains(string(res.body), "is not an argument here") {
			t.Fatalf("answer %s", res.body)
		}
		check(t, res.body, nil)
	})
	t.Run("audit log", func(t *testing.T) {
		var scans int
		for _, r := range e.audits.All() {
			for _, s := range append(secrets, "jane.doe@example.com") {
				if strings.Contains(string(r.Details), s) || strings.Contains(r.Resource, s) {
					t.Errorf("%s record holds a secret: %s", r.ActionKey, r.Details)
				}
			}
			if r.ActionKey == "dlp.scan" && r.ActionType == audit.TypeDLP {
				scans++
			}
		}
		if scans != 2 {
			t.Errorf("%d dlp.scan records, want one per scan that found something", scans)
		}
	})
}

// Refinement asks the governed AI client about the ambiguous targets only, with the
// samples anonymized, and applies its choice among the rules' candidates.
func TestFieldMappingAIRefinement(t *testing.T) {
	var prompts []string
	provider := &ai.FuncProvider{ProviderName: "fake", ChatFunc: func(_ context.Context, id *identity.Identity, req ai.ChatRequest) (ai.ChatResponse, ai.Usage, error) {
		if id == nil || id.TenantID != "acme" {
			return ai.ChatResponse{}, ai.Usage{}, errors.New("unattributed")
		}
		for _, m := range req.Messages {
			prompts = append(prompts, m.Content)
		}
		return ai.ChatResponse{Content: `Here you go: {"choices":[{"target":"Name","source":"legalName","confidence":0.9,` +
				`"reason":"the registered name is what the account carries"},{"target":"ghost","source":"x","confidence":1}]}`},
			ai.Usage{Model: "fake-1"}, nil
	}}
	auditor := aitest.NewAuditor()
	governed := ai.NewGoverned(provider, promptScanner{dlp.NewScanner()}, aitest.NewTraceStore(), aitest.NewCostStore(), auditor).WithClock(clock)
	args := map[string]any{
		"sourceSystem": "hosterp", "targetSystem": "crm",
		"sourceFields": []map[string]any{{"name": "companyName", "type": "string"}, {"name": "legalName", "type": "string"},
			{"name": "email", "type": "email"}},
		"targetFields": []map[string]any{{"name": "Name", "type": "string", "required": true},
			{"name": "Email", "type": "email"}},
		"sampleData": []map[string]any{{"companyName": "Acme, contact jane.doe@example.com", "legalName": "Acme Tools Inc.",
			"email": "jane.doe@example.com"}},
	}
	meta := map[string]any{toolcatalog.MetaRefine: true}
	type answer struct {
		Suggestions  []toolcatalog.Suggestion  `json:"suggestions"`
		AIRefinement *toolcatalog.AIRefinement `json:"aiRefinement"`
	}
	find := func(a answer, target string) toolcatalog.Suggestion {
		for _, s := range a.Suggestions {
			if s.TargetField == target {
				return s
			}
		}
		return toolcatalog.Suggestion{}
	}

	t.Run("without asking, rules only", func(t *testing.T) {
		e := newEnv(t, func(c *toolcatalog.Catalog) { c.AI = governed })
		a := decode[answer](t, e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, args, nil).Result.StructuredContent)
		if a.AIRefinement != nil || find(a, "Name").SourceField != "companyName" || len(prompts) != 0 {
			t.Errorf("refinement %+v, Name ← %s, %d prompts", a.AIRefinement, find(a, "Name").SourceField, len(prompts))
		}
	})
	t.Run("asked, with an AI client", func(t *testing.T) {
		e := newEnv(t, func(c *toolcatalog.Catalog) { c.AI = governed })
		cs := e.connect(t, operatorA, toolcatalog.ProtocolVersion)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: meta, Name: toolcatalog.ToolFieldMappingSuggest, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		a := decode[answer](t, structured(t, res))
		r := a.AIRefinement
		if r == nil || !r.Used || !slices.Equal(r.Targets, []string{"Name"}) || !slices.Equal(r.Changed, []string{"Name"}) {
			t.Fatalf("refinement %+v", r)
		}
		name := find(a, "Name")
		if name.SourceField != "legalName" || !name.RefinedByAI || name.Confidence > 0.95 ||
			!strings.Contains(name.Reasoning, "the AI refinement chose it") {
			t.Errorf("Name suggestion %+v", name)
		}
		if email := find(a, "Email"); email.SourceField != "email" || email.RefinedByAI {
			t.Errorf("Email suggestion %+v", email)
		}
		prompt := strings.Join(prompts, "\n")
		if strings.Contains(prompt, "jane.doe@example.com") || !strings.Contains(prompt, "[EMAIL") {
			t.Errorf("the prompt was not anonymized: %s", prompt)
		}
		if len(auditor.EventsWithKey(ai.ActionKeyInference)) != 1 {
			t.Errorf("inference not audited: %+v", auditor.Events())
		}
	})
	t.Run("asked, without an AI client", func(t *testing.T) {
		e := newEnv(t)
		a := decode[answer](t, e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, args, meta).Result.StructuredContent)
		if a.AIRefinement == nil || a.AIRefinement.Used || !strings.Contains(a.AIRefinement.Note, "no AI client") ||
			find(a, "Name").SourceField != "companyName" {
			t.Errorf("answer %+v", a)
		}
	})
	t.Run("the model fails: rules stand", func(t *testing.T) {
		failing := ai.NewGoverned(&ai.FuncProvider{ChatFunc: func(context.Context, *identity.Identity, ai.ChatRequest) (ai.ChatResponse, ai.Usage, error) {
			return ai.ChatResponse{}, ai.Usage{}, fmt.Errorf("throttled: %w", ai.ErrTransient)
		}}, promptScanner{dlp.NewScanner()}, aitest.NewTraceStore(), aitest.NewCostStore(), aitest.NewAuditor())
		e := newEnv(t, func(c *toolcatalog.Catalog) { c.AI = failing })
		res := e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, args, meta)
		a := decode[answer](t, res.Result.StructuredContent)
		if res.Result.IsError || a.AIRefinement.Used || find(a, "Name").SourceField != "companyName" {
			t.Errorf("answer %s", res.Result.StructuredContent)
		}
	})
}

// promptScanner is ai.PromptScanner over DLP's AI-prompt policy, as the service wires it.
type promptScanner struct{ s *dlp.Scanner }

func (p promptScanner) Anonymize(_ context.Context, doc []byte) ([]byte, map[string]int, error) {
	r, err := p.s.ScanJSON(dlp.AIPrompt, doc)
	if err != nil {
		return nil, nil, err
	}
	return r.Output, r.Counts(), nil
}

func (p promptScanner) RedactText(_ context.Context, text string) (string, error) {
	return p.s.RedactString(dlp.Record, text)
}

func TestFieldMappingAnswer(t *testing.T) {
	e := newEnv(t)
	res := e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, map[string]any{
		"sourceSystem": "webshop", "targetSystem": "hosterp",
		"sourceFields": []map[string]any{{"name": "billing_zip", "type": "string"}, {"name": "shipping_zip", "type": "string"},
			{"name": "contact", "type": "string"}, {"name": "qty", "type": "integer"}},
		"targetFields": []map[string]any{{"name": "shipToPostalCode", "type": "string", "required": true},
			{"name": "billToPostalCode", "type": "string"}, {"name": "quantity", "type": "number"},
			{"name": "subsidiary", "type": "reference", "required": true}, {"name": "email", "type": "email", "required": true}},
		"sampleData": []map[string]any{{"billing_zip": "04101", "shipping_zip": "73301", "contact": "ana@example.com", "qty": 3}},
	}, nil)
	a := decode[toolcatalog.MappingResult](t, res.Result.StructuredContent)
	got := map[string]string{}
	for _, s := range a.Suggestions {
		got[s.TargetField] = s.SourceField
		if s.Reasoning == "" || s.Confidence < toolcatalog.DefaultConfidenceThreshold {
			t.Errorf("suggestion %+v", s)
		}
	}
	want := map[string]string{"shipToPostalCode": "shipping_zip", "billToPostalCode": "billing_zip", "quantity": "qty",
		"email": "contact"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("suggestions %v, want %v", got, want)
	}
	if len(a.UnmappedRequiredTargets) != 1 || a.UnmappedRequiredTargets[0].Name != "subsidiary" ||
		a.Coverage.RequiredTargets != 3 || a.Coverage.RequiredMapped != 2 || a.ConfidenceThreshold != 0.5 {
		t.Errorf("coverage %+v unmapped %+v", a.Coverage, a.UnmappedRequiredTargets)
	}
	if !slices.Contains(a.SampleData.Formats, toolcatalog.FieldFormat{Field: "contact", Format: "email addresses", Matched: 1, Seen: 1}) ||
		a.SampleData.Records != 1 {
		t.Errorf("sample report %+v", a.SampleData)
	}
	// A higher threshold keeps only the sure ones.
	strict := decode[toolcatalog.MappingResult](t, e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, map[string]any{
		"sourceSystem": "a", "targetSystem": "b", "confidenceThreshold": 0.9,
		"sourceFields": []map[string]any{{"name": "contact", "type": "string"}, {"name": "qty", "type": "integer"}},
		"targetFields": []map[string]any{{"name": "quantity", "type": "integer"}, {"name": "email", "type": "email"}},
	}, nil).Result.StructuredContent)
	if len(strict.Suggestions) != 1 || strict.Suggestions[0].TargetField != "quantity" {
		t.Errorf("threshold 0.9: %+v", strict.Suggestions)
	}
}

func TestMCPDiscover(t *testing.T) {
	registry, err := toolcatalog.ParseExternalTools([]byte(`{
		"*":    [{"name": "rates.quote", "description": "Quote carrier rates",
		          "inputSchema": {"type": "object", "properties": {"weightKg": {"type": "number"}}}}],
		"acme": [{"name": "pim.lookup_item", "description": "Look up an item in the PIM"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.External = registry })
	names := func(c caller) []string {
		d := decode[toolcatalog.Discovery](t, e.rawCall(t, c, toolcatalog.ToolMCPDiscover, map[string]any{}, nil).Result.StructuredContent)
		var out []string
		for _, tool := range d.Tools {
			out = append(out, tool.Server+"|"+tool.Tool+"|"+string(tool.InputSchema))
		}
		if d.Count != len(d.Tools) {
			t.Errorf("count %d for %d tools", d.Count, len(d.Tools))
		}
		return out
	}
	if got := names(operatorA); !slices.Equal(got, []string{`pim|lookup_item|{"type":"object"}`,
		`rates|quote|{"type":"object","properties":{"weightKg":{"type":"number"}}}`}) {
		t.Errorf("acme discovers %v", got)
	}
	if got := names(operatorB); !slices.Equal(got, []string{`rates|quote|{"type":"object","properties":{"weightKg":{"type":"number"}}}`}) {
		t.Errorf("globex discovers %v", got)
	}
	t.Run("no source configured", func(t *testing.T) {
		e := newEnv(t)
		d := decode[toolcatalog.Discovery](t, e.rawCall(t, operatorA, toolcatalog.ToolMCPDiscover, nil, nil).Result.StructuredContent)
		if d.Count != 0 || d.Tools == nil {
			t.Errorf("discovery %+v", d)
		}
	})
}

func TestExternalToolConfiguration(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"upper case", `{"*":[{"name":"Rates.Quote"}]}`, "must match"},
		{"no server", `{"*":[{"name":"quote"}]}`, "must match"},
		{"reserved server", `{"*":[{"name":"service.governance_check"}]}`, "reserved"},
		{"twice for a tenant", `{"*":[{"name":"a.b"}],"acme":[{"name":"a.b"}]}`, "registered twice"},
		{"schema not an object", `{"*":[{"name":"a.b","inputSchema":{"type":"array"}}]}`, `"type": "object"`},
		{"schema not JSON object", `{"*":[{"name":"a.b","inputSchema":[1]}]}`, "must be a JSON object"},
		{"unknown member", `{"*":[{"name":"a.b","handler":"x"}]}`, "unknown field"},
		{"bad tenant id", `{"ACME!":[{"name":"a.b"}]}`, "tenant id"},
		{"not an object", `[1,2]`, "configuration is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := toolcatalog.ParseExternalTools([]byte(tc.doc))
			if !errors.Is(err, toolcatalog.ErrInvalidExternalTool) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if s, err := toolcatalog.ParseExternalTools([]byte("  ")); err != nil {
		t.Errorf("empty configuration: %v", err)
	} else if tools, _ := s.ExternalTools(context.Background(), "acme"); len(tools) != 0 {
		t.Errorf("empty configuration lists %v", tools)
	}
}

type tenants map[string]tenant.Config

func (ts tenants) Get(_ context.Context, id string) (tenant.Config, error) {
	c, ok := ts[id]
	if !ok {
		return tenant.Config{}, tenant.ErrNotFound
	}
	return c, nil
}

func TestTenantExternalTools(t *testing.T) {
	src := toolcatalog.TenantExternalTools{Tenants: tenants{
		"acme":   {ID: "acme", Settings: map[string]string{toolcatalog.KeyExternalTools: `[{"name":"pim.lookup_item","description":"Look up"}]`}},
		"globex": {ID: "globex", Settings: map[string]string{}},
		"broken": {ID: "broken", Settings: map[string]string{toolcatalog.KeyExternalTools: `[{"name":"Bad"}]`}},
	}}
	ctx := context.Background()
	if got, err := src.ExternalTools(ctx, "acme"); err != nil || len(got) != 1 || got[0].Name != "pim.lookup_item" {
		t.Errorf("acme: %v %v", got, err)
	}
	if got, err := src.ExternalTools(ctx, "globex"); err != nil || len(got) != 0 {
		t.Errorf("globex: %v %v", got, err)
	}
	if _, err := src.ExternalTools(ctx, "broken"); !errors.Is(err, toolcatalog.ErrInvalidExternalTool) {
		t.Errorf("broken: %v", err)
	}
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.External = src })
	res := e.rawCall(t, caller{"broken", "user:x", []string{identity.RoleAdmin}}, toolcatalog.ToolMCPDiscover, map[string]any{}, nil)
	if !res.Result.IsError || !strings.Contains(string(res.body), "temporarily_unavailable") {
		t.Errorf("a broken setting: %s", res.body)
	}
}
