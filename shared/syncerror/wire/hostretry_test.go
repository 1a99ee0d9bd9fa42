package wire

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A host-reported error is retried by the host ERP: the first attempt ticks the request
// on the sync error's NetSuite record, the next reads the retry script's answer from it.
// The service writes nothing else; an error that names no host record writes nothing.
func TestRetryOfAHostErrorAsksTheHostERPToReRunIt(t *testing.T) {
	e := newHostEnv(t)
	ctx := context.Background()
	c := e.hostError(t, "WS-1", "permission", nil)
	d := e.rt.Deliver
	if d.Target(c) != "hosterp" {
		t.Fatalf("target %q", d.Target(c))
	}
	if got := d.Rerun(ctx, "alice", c, "k1"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("first attempt %+v", got)
	}
	stored, _ := e.host.Get(hostSyncErrors, hostSyncError(c))
	if stored.Fields[HostRetryRequested] != true || stored.Fields[HostRetryStatus] != "requested" {
		t.Fatalf("the request on the host record %+v", stored.Fields)
	}
	if got := d.Rerun(ctx, "alice", c, "k1"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("before the script ran %+v", got)
	}
	e.script(c, "failed", "RCRD_DSNT_EXIST: no salesorder")
	if got := d.Rerun(ctx, "alice", c, "k1"); got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_FAILED_AT_HOST" ||
		got.Class != syncerror.AttemptValue {
		t.Fatalf("after a failed re-run %+v", got)
	}
	if got := d.Rerun(ctx, "alice", c, "k2"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("a retry after a failed re-run asks again: %+v", got)
	}
	e.script(c, "succeeded", "")
	if got := d.Rerun(ctx, "alice", c, "k3"); got.Result != syncerror.Delivered {
		t.Fatalf("after a re-run %+v", got)
	}
	if n := len(e.host.Writes()); n != len(writesTo(e.host, hostSyncErrors)) || e.crm.WriteCount() != 0 {
		t.Fatalf("writes beyond the host's sync-error record: %+v", e.host.Writes())
	}
	c.Record.Context = nil
	got := d.Rerun(ctx, "alice", c, "k4")
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_NO_HOST_RECORD" || got.Class != syncerror.AttemptConfiguration {
		t.Fatalf("no host record %+v", got)
	}
}

// The stored payload is masked at rest; a retry never sends it. With an approved fix the
// fix alone is written to the record (the approve's write, replayed under its key) before
// the host is asked to re-run the sync.
func TestRetryNeverSendsTheStoredPayload(t *testing.T) {
	e := newHostEnv(t)
	ctx := context.Background()
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland", "apiPassword": "s3cret", "ssn": "123-45-6789"})
	masked := json.RawMessage(`{"apiPassword":"[REDACTED:PASSWORD_FIELD]","ssn":"*****6789","shipcountry":"Deutschland"}`)
	c := e.hostError(t, "SO-1", "connection", func(r *syncerror.Record) { r.Payload = masked })
	if row := e.due(t, c.ID); row.Status != syncerror.StatusRetrying || row.Retry.Log[0].Result != syncerror.DeliveryRequested {
		t.Fatalf("after the first attempt %s %+v", row.Status, row.Retry.Log)
	}
	if w := writesTo(e.host, "salesOrder"); len(w) != 0 {
		t.Fatalf("the stored payload was written: %+v", w)
	}
	// Approved: the fix is the only value a retry carries.
	approved := e.row(t, c.ID)
	approved.Applied = &syncerror.AppliedWrite{Key: syncerror.FixKey(c.ID, approved.Proposal.Fix), At: e.now, Fix: approved.Proposal.Fix}
	e.script(c, "failed", "INVALID_FLD_VALUE")
	if got := e.rt.Deliver.Rerun(ctx, "alice", approved, "k-read"); got.Code != "RETRY_FAILED_AT_HOST" {
		t.Fatalf("reading the failed re-run: %+v", got)
	}
	if got := e.rt.Deliver.Rerun(ctx, "alice", approved, "k-fix"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("retry with the approved fix: %+v", got)
	}
	so, _ := e.host.Get("salesOrder", "SO-10042")
	w := writesTo(e.host, "salesOrder")
	if len(w) != 1 || len(w[0].Fields) != 1 || w[0].Fields["shipcountry"] != "DE" || so.Fields["apiPassword"] != "s3cret" || so.Fields["ssn"] != "123-45-6789" {
		t.Fatalf("writes %+v; record now %+v", w, so.Fields)
	}
}

// The ingest secret authenticates the host ERP only. A signed body that names the CRM as
// the other side of the failed sync, or says "outbound", does not make the service write
// as the CRM or to it: the retry asks the host ERP to re-run its own sync, and neither
// system's record is written. The attempt is audited.
func TestASignedBodyCannotChooseWhoWrites(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*syncerror.Record)
	}{
		{"externalSystem crm writes a CRM-owned field", func(r *syncerror.Record) {
			r.ExternalSystem, r.RecordType, r.RecordID = "crm", "customer", "C-7"
			r.Payload = json.RawMessage(`{"email":"evil@attacker.example"}`)
		}},
		{"outbound to the crm", func(r *syncerror.Record) {
			r.ExternalSystem, r.Direction, r.RecordType, r.RecordID = "crm", "outbound", "Account", "001A"
			r.Payload = json.RawMessage(`{"CreditLimit":9999999}`)
		}},
		{"a customer named as the host record takes the marker", func(r *syncerror.Record) {
			r.Context = json.RawMessage(`{"hostRecord":{"type":"customer","id":"C-7"}}`)
		}},
	} {
		for _, named := range []bool{true, false} {
			name := c.name
			if !named {
				name += ", no host record"
			}
			t.Run(name, func(t *testing.T) {
				e := newHostEnv(t)
				e.host.Seed("customer", "C-7", map[string]any{"email": "anna@customer.example"})
				e.crm.Seed("Account", "001A", map[string]any{"Name": "Acme", "CreditLimit": 5000})
				edit := c.edit
				if !named {
					edit = func(r *syncerror.Record) { c.edit(r); r.Context = nil }
				}
				row := e.hostError(t, "ATTACK-1", "connection", edit)
				row = e.due(t, row.ID)
				if named {
					e.script(row, "succeeded", "") // the host re-ran its own sync
					row = e.due(t, row.ID)
				}
				cust, _ := e.host.Get("customer", "C-7")
				acct, _ := e.crm.Get("Account", "001A")
				if cust.Fields["email"] != "anna@customer.example" || acct.Fields["CreditLimit"] != json.Number("5000") ||
					len(writesTo(e.host, "customer")) != 0 || e.crm.WriteCount() != 0 {
					t.Fatalf("written: host %+v crm %+v (customer %+v, account %+v)", e.host.Writes(), e.crm.Writes(), cust.Fields, acct.Fields)
				}
				if len(e.host.Writes()) != len(writesTo(e.host, hostSyncErrors)) {
					t.Fatalf("host writes beyond its sync-error record: %+v", e.host.Writes())
				}
				if !named && (row.Status != syncerror.StatusPending || row.Retry.Log[0].Class != syncerror.AttemptConfiguration) {
					t.Fatalf("without a host record: %s %+v", row.Status, row.Retry.Log)
				}
				var retries int
				for _, r := range e.audits.All() {
					if r.ActionKey == "syncerror.retry" && r.Resource == "syncerror/"+row.ID && strings.Contains(string(r.Details), `"source":"webhook"`) {
						retries++
					}
				}
				if retries == 0 {
					t.Fatalf("no audit record of the attempt: %+v", e.audits.All())
				}
			})
		}
	}
}

// The audit record of an attempt names its result and class.
func TestRetryAuditNamesTheAttempt(t *testing.T) {
	e := newHostEnv(t)
	row := e.hostError(t, "E-1", "connection", func(r *syncerror.Record) { r.Context = nil })
	e.due(t, row.ID)
	recs := e.audits.All()
	last := recs[len(recs)-1]
	if last.ActionKey != "syncerror.retry" || last.Result != audit.ResultFailure || !strings.Contains(string(last.Details), `"class":"configuration"`) ||
		!strings.Contains(string(last.Details), "RETRY_NO_HOST_RECORD") {
		t.Fatalf("audit %+v %s", last, last.Details)
	}
}
