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

// BenchmarkListDiagnosed measures one console page (limit 25, newest first) of diagnosed
// pending rows on dynalite, each with the sample proposal: what a page of the queue costs
// once the proposal is on its rows (issue 37 §1 keeps most of it out of by_status).
func BenchmarkListDiagnosed(b *testing.B) {
	claims := dynamotest.Claims(b, emutest.Pair)
	ctx := context.Background()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100 {
		at := base.Add(time.Duration(i) * time.Second)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("acme", fmt.Sprintf("D-%d", i)), syncerror.SourceWebhook, "", at)
		if _, err := claims.Claim(ctx, c); err != nil {
			b.Fatal(err)
		}
		got, err := claims.BeginDiagnosis(ctx, "acme", c.ID, at, at)
		if err != nil {
			b.Fatal(err)
		}
		if err := claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 1), at), at); err != nil {
			b.Fatal(err)
		}
	}
	q := syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 25}
	b.ResetTimer()
	for range b.N {
		p, err := claims.List(ctx, "acme", q)
		if err != nil || len(p.Claims) != 25 || p.Claims[0].Proposal == nil {
			b.Fatalf("page of %d rows, err=%v", len(p.Claims), err)
		}
	}
}
