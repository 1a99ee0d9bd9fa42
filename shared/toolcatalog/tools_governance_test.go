package toolcatalog_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dlp/dlptest"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

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
		// The guard refuses a mask copied from a stored payload (dlp_masked_value); the
		// check answered allow.
		{"deny: a masked value", map[string]any{"input": write("customer", "C-1",
			map[string]any{"email": "[REDACTED:EMAIL]"}), "sourceSystem": "crm", "targetSystem": "hosterp"},
			toolcatalog.DecisionDeny, "dlp_masked_value"},
		{"deny: a masked card in a nested value", map[string]any{"input": write("customer", "C-1",
			map[string]any{"notes": []any{map[string]any{"card": "************1111"}}}), "sourceSystem": "crm", "targetSystem": "crm"},
			toolcatalog.DecisionDeny, "dlp_masked_value"},
		{"allow_with_drops: a mask in a dropped field is not written", map[string]any{"input": write("customer", "C-1",
			map[string]any{"email": "[EMAIL_1]", "creditLimit": 100}), "sourceSystem": "hosterp", "targetSystem": "crm"},
			toolcatalog.DecisionAllowWithDrops, "ownership_fields_dropped"},
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
