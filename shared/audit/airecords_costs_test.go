package audit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// rulesCost is a cost record of a rules diagnosis's call as the governed client writes
// it (shared/ai CostRecord), its tokens and cost marked by n.
func rulesCost(inference, op string, n int) audit.CostDoc {
	return audit.CostDoc{Operation: op, Data: fmt.Appendf(nil, `{"tenantId":"cost","inferenceId":%q,"operation":%q,`+
		`"provider":"rules","model":"rules-v1","identity":{"tenantId":"cost","actor":"webhook:msg_V8eZA9O8NXaKCMgZMflrNg",`+
		`"source":"tenant"},"inputTokens":%d,"outputTokens":0,"costUsd":0,"priced":true,"at":"2026-11-29T23:03:17.7663029Z"}`,
		inference, op, n)}
}

// An inference's cost records are one item, one write (issue 37 §1: a rules diagnosis's
// two were two items, 1 WRU each): the first record of each operation stands, a later
// write adds its operations to those stored, and the records read in the order of their
// operations' names, as the per-operation items of before, which still read.
func TestCostsOfAnInferenceAreOneItem(t *testing.T) {
	ctx := context.Background()
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		name := table(blueprint.TableAIRecords)
		s := audit.NewAIRecords(db, name)
		inf := "se_cgrtqi4ckyfl4jencqfsn3tame-a2"
		first := []audit.CostDoc{rulesCost(inf, "suggest", 1), rulesCost(inf, "assessQuality", 1)}
		if err := s.PutCostDocs(ctx, "t1", inf, first); err != nil {
			t.Fatal(err)
		}
		if size := itemSize(getRaw(t, db, name, "cost#"+inf)); size > 1024 {
			t.Errorf("a rules diagnosis's cost item is %d bytes, over the 1 KB of one write unit", size)
		}
		// A replay's records do not replace the first; a later call's record is added.
		if err := s.PutCostDocs(ctx, "t1", inf, []audit.CostDoc{rulesCost(inf, "suggest", 2), rulesCost(inf, "chat", 2)}); err != nil {
			t.Fatal(err)
		}
		putRaw(t, db, name, "cost#se_cgrtqi4ckyfl4jencqfsn3tame-a1#suggest", "data", &types.AttributeValueMemberS{Value: "old suggest"})
		want := []string{"old suggest", string(first[1].Data), string(rulesCost(inf, "chat", 2).Data), string(first[0].Data)}
		docs, err := s.Docs(ctx, "t1", "cost", "se_cgrtqi4ckyfl4jencqfsn3tame")
		if err != nil || !equalDocs(docs, want) {
			t.Fatalf("Docs: %q (%v), want %q", docs, err, want)
		}
	})
}

// The costs route's pages hold limit records however the items group them, a page ending
// inside an item; the cursors of before (a record key) still page; a cursor naming a
// position an item cannot have is refused.
func TestCostPagesEndInsideAnItem(t *testing.T) {
	ctx := context.Background()
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		name := table(blueprint.TableAIRecords)
		s := audit.NewAIRecords(db, name)
		claim := "se_cgrtqi4ckyfl4jencqfsn3tame"
		putRaw(t, db, name, "cost#"+claim+"-a1#assessQuality", "data", &types.AttributeValueMemberS{Value: "a1 assessQuality"})
		putRaw(t, db, name, "cost#"+claim+"-a1#suggest", "data", &types.AttributeValueMemberS{Value: "a1 suggest"})
		var want []string
		for _, inf := range []string{claim + "-a1", claim + "-a2", claim + "-a3"} {
			docs := []audit.CostDoc{rulesCost(inf, "suggest", 0), rulesCost(inf, "assessQuality", 0)}
			if inf == claim+"-a1" {
				want = append(want, "a1 assessQuality", "a1 suggest")
				continue
			}
			if inf == claim+"-a3" {
				docs = docs[:1]
			}
			if err := s.PutCostDocs(ctx, "t1", inf, docs); err != nil {
				t.Fatal(err)
			}
			for i := len(docs) - 1; i >= 0; i-- {
				want = append(want, string(docs[i].Data))
			}
		}
		for limit := 1; limit <= len(want)+1; limit++ {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				page, next, err := s.AIRecords(ctx, "t1", audit.KindCost, claim, limit, cursor)
				if err != nil || len(page) > limit || (next != "" && len(page) < limit) || pages > len(want) {
					t.Fatalf("limit %d, page %d: %d records, next %q (%v)", limit, pages, len(page), next, err)
				}
				for _, d := range page {
					got = append(got, string(d))
				}
				if cursor = next; cursor == "" {
					break
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("limit %d: pages hold %q, want %q", limit, got, want)
			}
		}
		// A record key, the cursor of before, pages on after that item.
		page, _, err := s.AIRecords(ctx, "t1", audit.KindCost, claim, 10, dynamostore.EncodeCursor("cost#"+claim+"-a1#suggest"))
		if err != nil || !slices.Equal(stringsOf(page), want[2:]) {
			t.Errorf("after the cursor of an old item: %q (%v), want %q", stringsOf(page), err, want[2:])
		}
		for _, bad := range []string{"\n0", "\n01", "\nx", "\n-1"} {
			c := dynamostore.EncodeCursor("cost#" + claim + "-a2" + bad)
			if _, _, err := s.AIRecords(ctx, "t1", audit.KindCost, claim, 1, c); !errors.Is(err, audit.ErrBadCursor) {
				t.Errorf("cursor %q: %v, want ErrBadCursor", bad, err)
			}
		}
	})
}

func stringsOf[D ~[]byte](docs []D) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = string(d)
	}
	return out
}
