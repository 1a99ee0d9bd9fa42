package dynamo_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// queryMeter counts the Query calls a client makes and the rows DynamoDB examined for them.
type queryMeter struct{ queries, scanned atomic.Int64 }

func (m *queryMeter) install(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, emutest.Observe(func(_, out any) {
		if q, ok := out.(*dynamodb.QueryOutput); ok {
			m.queries.Add(1)
			m.scanned.Add(int64(q.ScannedCount))
		}
	}))
}

// systemMix is how the benchmark's pending rows spread over systems: one integration that
// fails most, two smaller ones, and one that fails rarely (1 row in 200).
var systemMix = []struct {
	name  string
	every int // one row in every
}{{"rare", 200}, {"amazon", 10}, {"shipstation", 4}, {"webshop", 1}}

func systemOf(i int) string {
	for _, s := range systemMix {
		if i%s.every == 0 {
			return s.name
		}
	}
	return ""
}

// BenchmarkListBySystem measures what one console page (limit 25, newest first) of the
// system filter costs on dynalite over 2,000 pending rows, per system: the Query calls,
// the rows DynamoDB examined and the rows answered, for the first page and for following
// the cursors to the end of the filter.
func BenchmarkListBySystem(b *testing.B) {
	db, table := emutest.Pair.Tables(b)
	var m queryMeter
	claims := dynamo.NewDynamoClaims(dynamodb.New(db.Options(), m.install), table(blueprint.TableProcessed))
	ctx := context.Background()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2000 {
		r := syncerrortest.SampleRecord("acme", fmt.Sprintf("B-%d", i))
		r.ExternalSystem = systemOf(i)
		if _, err := claims.Claim(ctx, syncerror.NewClaim(r, syncerror.SourceWebhook, "", base.Add(time.Duration(i)*time.Second))); err != nil {
			b.Fatal(err)
		}
	}
	for _, s := range systemMix {
		q := syncerror.ListQuery{Status: syncerror.StatusPending, System: s.name, Limit: 25}
		b.Run(s.name+"/first-page", func(b *testing.B) {
			m.queries.Store(0)
			m.scanned.Store(0)
			rows := 0
			for range b.N {
				p, err := claims.List(ctx, "acme", q)
				if err != nil {
					b.Fatal(err)
				}
				rows += len(p.Claims)
			}
			n := float64(b.N)
			b.ReportMetric(float64(m.queries.Load())/n, "queries/page")
			b.ReportMetric(float64(m.scanned.Load())/n, "examined/page")
			b.ReportMetric(float64(rows)/n, "rows/page")
		})
		b.Run(s.name+"/every-page", func(b *testing.B) {
			m.queries.Store(0)
			pages, rows := 0, 0
			for range b.N {
				q := q
				for {
					p, err := claims.List(ctx, "acme", q)
					if err != nil {
						b.Fatal(err)
					}
					pages, rows = pages+1, rows+len(p.Claims)
					if q.Cursor = p.NextCursor; q.Cursor == "" {
						break
					}
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(pages)/n, "pages")
			b.ReportMetric(float64(m.queries.Load())/n, "queries")
			b.ReportMetric(float64(rows)/n, "rows")
		})
	}
}
