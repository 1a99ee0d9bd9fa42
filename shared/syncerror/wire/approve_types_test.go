package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// typedHostClients is every tenant's host ERP connector: one NetSuite fake.
type typedHostClients struct{ c *connector.Client }

func (h typedHostClients) Client(context.Context, string, connector.System) (*connector.Client, error) {
	return h.c, nil
}

// typedGuardClients gives the guard the same client to write with.
type typedGuardClients struct{ c *connector.Client }

func (h typedGuardClients) Client(context.Context, string, connector.System) (governance.Writer, error) {
	return h.c, nil
}

// hostFixture is the approve and revert against a NetSuite fake, through the real
// guard, connector, metadata read and record read.
type hostFixture struct {
	*fixture
	fake *fakesystem.Server
}

func newHostFixture(t *testing.T) *hostFixture {
	t.Helper()
	return newHostFixtureBehind(t, nil)
}

// newHostFixtureBehind is newHostFixture with the fake behind front (nil: none), a gateway
// a test puts in the way.
func newHostFixtureBehind(t *testing.T, front func(http.Handler) http.Handler) *hostFixture {
	t.Helper()
	fake := fakesystem.New(connector.SystemHostERP)
	h := fake.Handler()
	if front != nil {
		h = front(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP,
		BaseURL: srv.URL + fakesystem.BasePath(connector.SystemHostERP)})
	if err != nil {
		t.Fatal(err)
	}
	// SO-10042 has a ship zip and no credit limit; another order shows the type a credit
	// limit has (the fake types its metadata from the values it holds).
	fake.Seed("salesOrder", "SO-10042", map[string]any{"shipzip": "10115", "memo": "rush"})
	fake.Seed("salesOrder", "SO-1", map[string]any{"creditLimit": 1000, "shipzip": "20095"})
	f := newFixture(t)
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}},
		Ledger:    f.ledger, Records: &governancetest.Store{}, Connectors: typedGuardClients{client}, Scanner: dlp.NewScanner(),
		Audit: f.op.Audit.(*audit.Log), Now: func() time.Time { return f.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.op.Fixes = fixWriter{g}
	f.op.Assist = &policy.Assist{Store: f.claims, Reader: recordReader{typedHostClients{client}}}
	f.op.Fields = newFieldCatalog(typedHostClients{client}, func() time.Time { return f.now })
	return &hostFixture{fixture: f, fake: fake}
}

// readyWith claims an error on SO-10042 whose payload claims payload and whose proposal
// is fix.
func (f *hostFixture) readyWith(t *testing.T, errorID, payload string, fix []syncerror.FieldChange) syncerror.Claim {
	t.Helper()
	ctx := context.Background()
	rec := syncerrortest.SampleRecord("acme", errorID)
	rec.Payload = json.RawMessage(payload)
	c := syncerror.NewClaim(rec, syncerror.SourceWebhook, "wh-1", f.now)
	if _, err := f.claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := f.claims.BeginDiagnosis(ctx, "acme", c.ID, f.now, f.now)
	if err != nil {
		t.Fatal(err)
	}
	p := syncerrortest.SampleProposal("inf-"+errorID, f.now)
	p.Fix = fix
	if err := f.claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, p, f.now); err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *hostFixture) held(t *testing.T) map[string]any {
	t.Helper()
	rec, ok := f.fake.Get("salesOrder", "SO-10042")
	if !ok {
		t.Fatal("SO-10042 is gone")
	}
	return rec.Fields
}

// "01067" approved for a text field arrives at the host ERP as the text "01067"; "ten"
// for a number field and a field the record type does not have are refused, naming the
// field, with nothing written.
func TestApprovedValueArrivesAtTheHostERPWithItsType(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-zip", `{"shipzip":"1067"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "1067", After: 1067.0}})
	writes := f.fake.WriteCount()
	w := f.call(t, f.op.ApproveHandler(), c.ID, `{"fix":[{"path":"creditLimit","after":"ten"}]}`)
	if w.Code != http.StatusBadRequest || code(w) != "validation_failed" || !strings.Contains(w.Body.String(), "creditLimit") {
		t.Fatalf("ten for a number: %d %s", w.Code, w.Body)
	}
	w = f.call(t, f.op.ApproveHandler(), c.ID, `{"fix":[{"path":"Id","after":"0015g00000XyZ"}]}`)
	if w.Code != http.StatusBadRequest || code(w) != "unknown_field" || !strings.Contains(w.Body.String(), `\"Id\"`) {
		t.Fatalf("a field salesOrder does not have: %d %s", w.Code, w.Body)
	}
	if f.fake.WriteCount() != writes {
		t.Fatalf("a refused fix was written: %+v", f.fake.Writes())
	}
	if w := f.call(t, f.op.ApproveHandler(), c.ID, `{"fix":[{"path":"shipzip","after":"01067"}]}`); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if got := f.held(t)["shipzip"]; got != "01067" {
		t.Fatalf("the host ERP holds shipzip %#v (%T), want the text \"01067\"", got, got)
	}
}

// Revert writes back what the record held when the fix was written, read from it then:
// a field it did not have is cleared, and the "before" the webhook payload and the
// proposal claimed (creditLimit 500) is never written.
func TestRevertRestoresWhatTheRecordHeld(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-credit", `{"creditLimit":500,"shipzip":"99999"}`, []syncerror.FieldChange{
		{Path: "creditLimit", Before: 500.0, After: 2500.0}, {Path: "shipzip", Before: "99999", After: "01067"}})
	if w := f.call(t, f.op.ApproveHandler(), c.ID, ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if held := f.held(t); held["shipzip"] != "01067" || held["creditLimit"] == nil {
		t.Fatalf("after the approve the record holds %+v", held)
	}
	row := f.row(t, c.ID)
	if row.Applied == nil || len(row.Applied.Prior) != 2 || !row.Applied.Prior[0].Absent || row.Applied.Prior[1].Value != "10115" {
		t.Fatalf("prior values kept %+v", row.Applied)
	}
	if w := f.call(t, f.op.RevertHandler(), c.ID, `{"reason":"wrong customer"}`); w.Code != http.StatusOK {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	held := f.held(t)
	if v, ok := held["creditLimit"]; ok && v != nil {
		t.Fatalf("creditLimit, absent before the fix, reverted to %#v", v)
	}
	if held["shipzip"] != "10115" {
		t.Fatalf("shipzip reverted to %#v, want what the record held: \"10115\"", held["shipzip"])
	}
	for _, wr := range f.fake.Writes() {
		if v, ok := wr.Fields["creditLimit"]; ok && v != nil && !strings.HasPrefix(jsonText(v), "2500") {
			t.Fatalf("wrote creditLimit %v: a value nobody read from the record", v)
		}
	}
}

// A fix whose record could not be read when it was written is not reverted: there is no
// true "before" to write.
func TestRevertWithoutPriorValuesRefuses(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-blind", `{"shipzip":"99999"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "99999", After: "01067"}})
	f.op.Assist.Reader = nil
	if w := f.call(t, f.op.ApproveHandler(), c.ID, ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	f.op.Assist.Reader = recordReader{typedHostClients{mustClient(t, f)}}
	writes := f.fake.WriteCount()
	if w := f.call(t, f.op.RevertHandler(), c.ID, ""); w.Code != http.StatusConflict || code(w) != "prior_unknown" {
		t.Fatalf("revert without prior values: %d %s", w.Code, w.Body)
	}
	if f.fake.WriteCount() != writes || f.held(t)["shipzip"] != "01067" {
		t.Fatalf("written: %+v", f.held(t))
	}
}

// An approve of the AI's fix that the target's metadata retypes (the number 1067 for a
// text field) writes the text "1067" under the key of that typed fix. When neither the
// completion nor the marker could be stored, the reconcile finds that write in the ledger
// under the key the lease kept (not one recomputed from the untyped proposal) and
// completes the row with the fix that was written.
func TestTheReconcileFindsTheTypedWriteUnderTheLeaseKey(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-typed", `{"shipzip":"1067"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "1067", After: 1067.0}})
	f.claims.markFails, f.claims.finishFails = 3, 3
	if w := f.call(t, f.op.ApproveHandler(), c.ID, ""); w.Code != http.StatusAccepted {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if got := f.held(t)["shipzip"]; got != "1067" {
		t.Fatalf("host holds %#v", got)
	}
	f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Minute)
	rep, err := f.rc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	row := f.row(t, c.ID)
	if row.Status != syncerror.StatusApproved {
		t.Fatalf("write landed (host holds shipzip=%#v) but reconcile left row %s (report %+v)", f.held(t)["shipzip"], row.Status, rep)
	}
	if fix := syncerror.WrittenFix(row); len(fix) != 1 || fix[0].After != "1067" {
		t.Fatalf("the row records %#v as written; want the text \"1067\"", fix)
	}
}

func mustClient(t *testing.T, f *hostFixture) *connector.Client {
	t.Helper()
	r := f.op.Fields.(*fieldCatalog).conns.(typedHostClients)
	return r.c
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The row says where Approve writes: the host ERP's record for an error it reported, the
// flow's target for a flow's failed write.
func TestDetailSaysWhereApproveWrites(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-where", `{}`, nil)
	w := f.call(t, f.op.DetailHandler(), c.ID, "")
	var d struct{ WritesTo *syncerror.WriteTarget }
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || d.WritesTo == nil ||
		*d.WritesTo != (syncerror.WriteTarget{System: "hosterp", Vendor: "NetSuite", RecordType: "salesOrder", RecordID: "SO-10042"}) {
		t.Fatalf("writesTo %+v (%s)", d.WritesTo, w.Body)
	}
	flow := c
	flow.Source = syncerror.SourceFlow
	flow.Record.RecordType, flow.Record.Context = "Account", json.RawMessage(`{"flow":{"source":"hosterp","target":"crm"}}`)
	if got := f.op.Fields.WriteTarget(flow); got.System != "crm" || got.Vendor != "Salesforce" || got.RecordType != "Account" {
		t.Fatalf("a flow's fix writes to %+v", got)
	}
}
