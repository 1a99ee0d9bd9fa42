package governance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// A record of each system, as its vendor names entities and ids.
var maskedTargets = []struct {
	sys        connector.System
	entity, id string
}{
	{connector.SystemHostERP, "salesOrder", "SO-10043"},
	{connector.SystemERP2, "customers", "C-1"},
	{connector.SystemCRM, "Account", "001000000000003AAA"},
	{connector.SystemMarketing, "list1", "jana@example.com"},
	{connector.SystemShipping, "products", "7001"},
}

// What a DLP-masked payload at rest holds (the retry of SO-10043 wrote exactly these),
// and the placeholders an AI proposal may carry back.
var maskedWrites = map[string]map[string]any{
	"redacted password": {"apiPassword": "[REDACTED:PASSWORD_FIELD]"},
	"SSN mask":          {"ssn": "*****6789"},
	"PCI mask":          {"memo": "card 411111******1111"},
	"AI placeholder":    {"email": "[EMAIL_1]"},
	"nested in an object and a list": {"addressbook": map[string]any{
		"lines": []any{"1 Market St", "[REDACTED:PHONE]"}}},
	"beside a clean field": {"shipcountry": "DE", "shipphone": "*******0100"},
}

// The guard refuses a masked value on every connector: nothing reaches the system, the
// refusal is audited as a governance record and alerted, and the write answers
// dlp_masked_value.
func TestGuardRefusesMaskedValuesOnEverySystem(t *testing.T) {
	t.Parallel()
	for _, target := range maskedTargets {
		t.Run(string(target.sys), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.fakes[target.sys].Seed(target.entity, target.id, map[string]any{"seeded": true})
			before, _ := e.fakes[target.sys].Get(target.entity, target.id)
			refused := 0
			for name, fields := range maskedWrites {
				_, err := e.write(operator("t1"), req(target.sys, target.sys, target.entity, target.id, fields))
				if !errors.Is(err, governance.ErrMaskedValue) || !errors.Is(err, governance.ErrDLPBlocked) {
					t.Fatalf("%s: err = %v, want ErrMaskedValue (an ErrDLPBlocked)", name, err)
				}
				refused++
			}
			if n := e.fakes[target.sys].Requests(); n != 0 {
				t.Fatalf("%d requests reached %s", n, target.sys)
			}
			after, _ := e.fakes[target.sys].Get(target.entity, target.id)
			if !jsonEqual(before.Fields, after.Fields) {
				t.Fatalf("the record changed: %v, was %v", after.Fields, before.Fields)
			}
			if e.ledger.Len() != 0 {
				t.Fatal("a refused write was entered in the ledger")
			}
			records := e.audits(governance.ActionMaskedValue)
			alerts := e.alerts.Masked()
			if len(records) != refused || len(alerts) != refused {
				t.Fatalf("%d governance records and %d alerts, want %d of each", len(records), len(alerts), refused)
			}
			for _, r := range records {
				if r.ActionType != audit.TypeGovernance || r.Result != audit.ResultDenied || r.CorrelationID == "" {
					t.Fatalf("governance record %+v", r)
				}
			}
			for _, a := range alerts {
				if a.Tenant != "t1" || a.Target != target.sys || a.Entity != target.entity || len(a.Fields) == 0 ||
					a.Resource != recordRedacted(t, string(target.sys)+"/"+target.entity+"/"+target.id) {
					t.Fatalf("alert %+v", a)
				}
			}
			writes := e.audits(governance.ActionConnectorWrite)
			if len(writes) != refused {
				t.Fatalf("%d connector.write records, want %d", len(writes), refused)
			}
			for _, w := range writes {
				var d struct{ Outcome string }
				if json.Unmarshal(w.Details, &d) != nil || d.Outcome != governance.CodeDLPMaskedValue {
					t.Fatalf("connector.write %s, want outcome %s", w.Details, governance.CodeDLPMaskedValue)
				}
			}
			e.mustNotContain("*****6789", "411111******1111", "*******0100")

			// The same system takes a clean write: the refusals were the masks'.
			clean := map[string]any{"memo": "a*b **bold** [REDACTED] 2 * 3"}
			if _, err := e.write(operator("t1"), req(target.sys, target.sys, target.entity, target.id, clean)); err != nil {
				t.Fatalf("a clean write: %v", err)
			}
			if e.fakes[target.sys].WriteCount() != 1 {
				t.Fatalf("%s applied %d writes, want the clean one", target.sys, e.fakes[target.sys].WriteCount())
			}
		})
	}
}

// The refusal names the fields that hold masks, never a clean one beside them.
func TestGuardMaskedRefusalNamesTheMaskedFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fields := map[string]any{"shipcountry": "DE", "ssn": "*****6789", "notes": []any{"ok", "[SSN_1]"}}
	if _, err := e.write(operator("t1"), req(hosterp, hosterp, "salesOrder", "SO-1", fields)); !errors.Is(err, governance.ErrMaskedValue) {
		t.Fatalf("err = %v", err)
	}
	alerts := e.alerts.Masked()
	if len(alerts) != 1 || !slices.Equal(alerts[0].Fields, []string{"notes", "ssn"}) || alerts[0].Reason != "test.write" {
		t.Fatalf("alerts %+v", alerts)
	}
}

// A dry run says what the write would meet: dlp_masked_value.
func TestEvaluateSaysAMaskedValueIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	v, err := e.guard.Evaluate(t.Context(), operator("t1"), req(crm, crm, "contact", "C-1", map[string]any{"Phone": "[REDACTED:PHONE]"}))
	if err != nil || v.Decision != governance.VerdictDLPMaskedValue {
		t.Fatalf("verdict %+v, %v", v, err)
	}
	if len(e.alerts.Masked()) != 0 || len(e.audit.All()) != 0 {
		t.Fatal("a dry run recorded or alerted")
	}
}

// The production alerter raises a masked-value refusal on its three channels, naming
// fields, never values.
func TestEventAlerterMaskedValue(t *testing.T) {
	t.Parallel()
	var logs, metrics bytes.Buffer
	ctx := httpapi.WithCorrelation(context.Background(), slog.New(slog.NewJSONHandler(&logs, nil)), "corr-1")
	pub := &publisher{}
	a := &governance.EventAlerter{Events: pub, Metrics: &metrics, Now: func() time.Time { return t0 }}
	r := governance.MaskedValueRefusal{ID: "mv-1", Time: t0, Tenant: "acme", Entity: "salesOrder", Caller: hosterp,
		Target: hosterp, CorrelationID: "corr-1", Resource: "hosterp/salesOrder/SO-10043", Fields: []string{"ssn"}, Reason: "retry"}
	if err := a.AlertMaskedValue(ctx, r); err != nil {
		t.Fatal(err)
	}
	var line struct {
		Tenant string  `json:"tenant"`
		Count  float64 `json:"MaskedValueRefusals"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(metrics.Bytes()), &line); err != nil || line.Tenant != "acme" || line.Count != 1 {
		t.Fatalf("EMF line %s (%v)", metrics.String(), err)
	}
	if len(pub.events) != 1 || pub.events[0].Source != governance.EventSource ||
		pub.events[0].DetailType != governance.EventDetailTypeMasked {
		t.Fatalf("events %+v", pub.events)
	}
	var d map[string]any
	if err := json.Unmarshal(pub.events[0].Detail, &d); err != nil || d["resource"] != r.Resource || d["id"] != "mv-1" {
		t.Fatalf("detail %s (%v)", pub.events[0].Detail, err)
	}
	if !strings.Contains(logs.String(), "masked value refused") || !strings.Contains(logs.String(), `"refusalId":"mv-1"`) {
		t.Fatalf("log %s", logs.String())
	}
	pub.err = errors.New("bus down")
	if err := a.AlertMaskedValue(ctx, r); err == nil {
		t.Fatal("a failed publish was not reported")
	}
}

// A masked write is never held; one held before the guard refused masks is not released:
// 409 dlp_masked_value, still pending, nothing written.
func TestReleaseOfAHeldMaskedWriteIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	masked := req(crm, crm, "contact", "C-1", map[string]any{"marketingOptIn": true, "Email": "[REDACTED:EMAIL]"})
	if _, err := e.write(operator("t1"), masked); !errors.Is(err, governance.ErrMaskedValue) || len(e.records.Approvals()) != 0 {
		t.Fatalf("a masked write was held: %v", err)
	}
	a := e.holdOptIn("t1", "C-2")
	a.ID, a.Request.IdempotencyKey = "ap_masked", newKey()
	a.Request.Fields = map[string]any{"marketingOptIn": true, "Email": "[REDACTED:EMAIL]"}
	if err := e.records.PutApproval(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeDLPMaskedValue {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusPending || e.fakes[crm].WriteCount() != 0 {
		t.Fatalf("after the refused release: %+v, %d writes", got, e.fakes[crm].WriteCount())
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// A record id can be personal data (a Mailchimp member is addressed by its email): the
// resource and breaking condition that name it are redacted before they go into the
// governance records the API serves, the audit, alerts and the returned error.
func TestRecordIDRedactedInGovernanceRecords(t *testing.T) {
	t.Parallel()
	const email = "jane.doe@example.com"
	e := newEnv(t)
	r := req(crm, marketing, "subscription", email, map[string]any{"status": "subscribed"})
	r.UpsertKey = "email_address"
	if _, err := e.guard.Write(context.Background(), operator("t1"), r); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	if _, err := e.write(operator("t1"), req(crm, marketing, "member", email, map[string]any{"note": "vip"})); err != nil {
		t.Fatalf("update: %v", err)
	}
	back := req(marketing, crm, "member", email, map[string]any{"note": "vip"})
	_, err := e.write(operator("t1"), back)
	if !errors.Is(err, governance.ErrLoopDetected) {
		t.Fatalf("return leg: %v, want ErrLoopDetected", err)
	}
	if strings.Contains(err.Error(), email) {
		t.Fatalf("the error names the address: %v", err)
	}
	for _, a := range e.alerts.All() {
		if strings.Contains(fmt.Sprintf("%+v", a), email) {
			t.Fatalf("an alert names the address: %+v", a)
		}
	}
	e.mustNotContain(email)
}

// recordRedacted is s as the guard records resources: under DLP's record policy (a
// Mailchimp member's id is its address).
func recordRedacted(t *testing.T, s string) string {
	t.Helper()
	out, err := dlp.NewScanner().RedactString(dlp.Record, s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
