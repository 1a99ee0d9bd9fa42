package governance_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

// benchFields is a CRM contact update of about 2 KiB: contact data the DLP scan finds and
// lets through, an address, and a free-text note.
func benchFields(b *testing.B) map[string]any {
	fields := map[string]any{
		"firstName": "Jane", "lastName": "Doe", "email": "jane.doe@example.com", "phone": "+1 (415) 555-2671",
		"title": "Head of Procurement", "department": "Operations", "accountId": "ACC-0042", "leadSource": "trade-show",
		"mailingAddress": map[string]any{"street": "1 Market St, Suite 300", "city": "San Francisco", "state": "CA",
			"postalCode": "94105", "country": "US"},
		"tags":  []any{"enterprise", "renewal-2027", "priority"},
		"score": json.Number("87"),
		"note": strings.Repeat("Discussed the renewal terms and the delivery schedule for the next quarter; "+
			"follow up after the budget review. ", 15),
	}
	raw, _ := json.Marshal(fields)
	if len(raw) < 2000 || len(raw) > 2300 {
		b.Fatalf("payload is %d bytes, want about 2 KiB", len(raw))
	}
	return fields
}

// BenchmarkGuardWrite measures the guard's own cost per write: manifest lookup, ledger
// read, canonical JSON and hash, DLP scan, dlp.scan and connector.write audit records
// (each redacted by the DLP record policy) and the ledger append, with in-memory stores
// and a writer that answers without a network.
func BenchmarkGuardWrite(b *testing.B) { benchGuardWrite(b, false) }

// BenchmarkGuardFlowWrite is BenchmarkGuardWrite for a flow's write: each field carries
// a trace of three hops, so the hop check, the flapping counter and the trail entry run
// as well.
func BenchmarkGuardFlowWrite(b *testing.B) { benchGuardWrite(b, true) }

func benchGuardWrite(b *testing.B, traced bool) {
	scanner := dlp.NewScanner()
	conns := &governancetest.Connectors{}
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}},
		Ledger:    &governancetest.Ledger{}, Records: &governancetest.Store{}, Connectors: conns, Scanner: scanner,
		Audit: &audit.Log{Store: &countingAudit{}, Redactor: redactor{scanner}}, Flaps: &governancetest.Flaps{},
	})
	if err != nil {
		b.Fatal(err)
	}
	fields := benchFields(b)
	var traces map[string]governance.Trace
	if traced {
		traces = map[string]governance.Trace{}
		for f := range fields {
			traces[f] = governance.Trace{Hops: []governance.Hop{
				{System: marketing, Entity: "member", Record: "m-1", Field: f}, {System: crm, Entity: "Contact", Record: "C-1", Field: f}}}
		}
	}
	id := operator("t1")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// A fresh record each time: the loop check reads a ledger that does not grow with
		// the benchmark, as in production where a record sees few writes.
		r := governance.WriteRequest{Source: crm, Target: hosterp, Entity: "contact", RecordID: "C-" + strconv.Itoa(i),
			Fields: fields, IdempotencyKey: "bench-" + strconv.Itoa(i), Reason: "bench"}
		if traced {
			r.Link = &governance.Link{Traces: traces}
		}
		if _, err := g.Write(ctx, id, r); err != nil {
			b.Fatal(err)
		}
	}
	if conns.Count() == 0 {
		b.Fatal("nothing was written")
	}
}

// countingAudit keeps no records: an in-memory store that grows by two records a write
// would time its own slice growth, which no production store does.
type countingAudit struct {
	audittest.Store
	n atomic.Int64
}

func (c *countingAudit) Put(context.Context, audit.Record) error {
	c.n.Add(1)
	return nil
}
