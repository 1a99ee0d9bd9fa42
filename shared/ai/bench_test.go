package ai_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/identity"
)

// BenchmarkDiagnoseRules is one governed diagnosis per op, as the worker makes it: the fake
// scanner anonymizes the prompt, the rules provider suggests and assesses, and the
// in-memory stores take the trace, two cost records and the audit event. The records of
// the corpus are diagnosed in turn.
func BenchmarkDiagnoseRules(b *testing.B) {
	cases := loadCorpus(b, "testdata/diagnoser_corpus.json")
	h := aitest.NewHarness(nil, aitest.Canaries...)
	id := identity.ForTenant("t-bench", "test:bench")
	ids := make([]string, 1024)
	for i := range ids {
		ids[i] = "inf-" + strconv.Itoa(i)
	}
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := cases[i%len(cases)]
		if _, err := h.Governed.Diagnose(ctx, id, ids[i%len(ids)], "se_bench", c.Request); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
