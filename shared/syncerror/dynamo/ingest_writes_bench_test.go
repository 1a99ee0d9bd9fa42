package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo/dynamotest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// BenchmarkIngestWrites measures, one call at a time on dynalite, each write the
// webhook's ingest makes (the guard puts, side by side, then the fold; the webhook-id's put
// only for an id that is not the host ERP's derived one) beside the claim row's plain put
// that make bench's "claim row floor" makes. The occurrences count on rows of up to
// MaxErrorKeys error keys (500 before 2026-12-01). On 2026-11-30 (500 each), with the fold one update
// creating or counting (SET a = if_not_exists(a, :a) for some thirty attributes, each
// clause evaluated by dynalite's expression interpreter): the put 1.14–1.76 ms, the
// fold's create 2.85–3.20 ms, an occurrence 3.17 ms, the errorId's put 0.69 ms, the
// webhook-id's 0.71 ms. With the create a put and the count a short update (fold.go):
// the create 0.95 ms, an occurrence 1.60 ms.
func BenchmarkIngestWrites(b *testing.B) {
	claims := dynamotest.Claims(b, emutest.Pair)
	ctx := context.Background()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	// seq keeps every item new across the runs the testing package makes of each.
	seq := 0
	next := func() int { seq++; return seq }
	claim := func(prefix string) syncerror.Claim {
		return syncerror.NewClaim(syncerrortest.SampleRecord("acme", fmt.Sprintf("%s-%d", prefix, next())), syncerror.SourceWebhook, "", at)
	}
	b.Run("claim-row-put", func(b *testing.B) {
		for range b.N {
			if _, err := claims.Claim(ctx, claim("P")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fold-create", func(b *testing.B) {
		for range b.N {
			c := claim("F")
			c.Record.RecordID = fmt.Sprint("R-", next()) // a signature of its own: a new row
			c.ID = syncerror.RowID(c.Record)
			if res, _, err := claims.Fold(ctx, c, syncerror.ErrorKey(c.Record.ErrorID)); err != nil || res != syncerror.FoldCreated {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("fold-occurrence", func(b *testing.B) {
		row := claim("O") // one signature: every post after the first is an occurrence
		for i := range b.N {
			c := row
			// A row of its own every MaxErrorKeys posts, each counted with its key.
			c.Record.RecordID = fmt.Sprint("O-", i/syncerror.MaxErrorKeys)
			c.ID = syncerror.RowID(c.Record)
			c.Record.ErrorID = fmt.Sprint("O-", next())
			if res, _, err := claims.Fold(ctx, c, syncerror.ErrorKey(c.Record.ErrorID)); err != nil || res == syncerror.FoldDuplicate {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("errorid-put", func(b *testing.B) {
		for range b.N {
			if _, ok, err := claims.ClaimErrorKey(ctx, "acme", syncerror.ErrorKey(fmt.Sprint("E-", next())), "sig"); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("webhookid-put", func(b *testing.B) {
		for range b.N {
			d := syncerror.Arrival{WebhookID: fmt.Sprint("msg_", next()), Message: "m"}
			if _, ok, err := claims.RecordWebhookID(ctx, "acme", d, at); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}
