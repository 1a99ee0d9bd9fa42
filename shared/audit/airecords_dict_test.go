package audit_test

import (
	"context"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/ai/aieval"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
)

// heldOut are the demo mix's files never tuned on; the trace dictionary is built from the
// others, so these measure it on traces it was not made from.
var heldOut = []string{"diagnoser_holdout5.json", "diagnoser_holdout7.json"}

// demoMix is the labelled sync errors of shared/ai/testdata, split into the files the
// trace dictionary was built from and the held-out ones.
func demoMix(t testing.TB) (built, held []string) {
	files, err := filepath.Glob("../ai/testdata/diagnoser_*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no demo mix (%v)", err)
	}
	for _, f := range files {
		if slices.Contains(heldOut, filepath.Base(f)) {
			held = append(held, f)
		} else {
			built = append(built, f)
		}
	}
	return built, held
}

// traceCorpus is the trace of a rules diagnosis of every case of files, as the governed
// client writes it (through the in-memory stores), with what differs from one sync error
// to the next drawn from r: the tenant, the webhook or user, the claim and attempt, the
// time. So a dictionary built from it holds the traces' shared text, not one run's ids.
func traceCorpus(t testing.TB, r *rand.Rand, files ...string) [][]byte {
	var out [][]byte
	b32 := base32.StdEncoding.WithPadding(base32.NoPadding)
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	}
	for _, f := range files {
		c, err := aieval.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range c.Cases {
			h := aitest.NewHarness(nil)
			at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
			clock := func() time.Time { at = at.Add(time.Duration(r.Int64N(int64(40 * time.Millisecond)))); return at }
			actor := "webhook:msg_" + b32.EncodeToString(random(14))[:22]
			if r.IntN(3) == 0 {
				actor = "reconcile"
			}
			id := identity.ForTenant(fmt.Sprintf("tenant-%x", random(4)), actor)
			claim := "se_" + strings.ToLower(b32.EncodeToString(random(16)))
			inference := claim + "-a" + strconv.Itoa(1+r.IntN(3))
			if _, err := h.Governed.WithClock(clock).Diagnose(context.Background(), id, inference, claim, k.Request); err != nil {
				t.Fatalf("%s: %v", k.Name, err)
			}
			for _, tr := range h.Traces.Traces() {
				b, err := json.Marshal(tr)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, b)
			}
		}
	}
	return out
}

// trainDictionary picks about size bytes of docs, greedily, seg bytes at a time, by how
// many documents share the k-byte strings in them (the cover algorithm of zstd's
// dictionary builder): a segment scores the document count of each distinct string in it
// not yet in the dictionary. Of a segment it keeps the bytes such strings cover (not a
// claim id or a time between them). The best go last, nearest the document: shorter
// distances.
func trainDictionary(docs [][]byte, size, seg, k int) string {
	ids := map[string]int32{}
	var shared []int // per string id: how many documents hold it
	strs := make([][]int32, len(docs))
	for d, doc := range docs {
		seen := map[int32]bool{}
		for i := 0; i+k <= len(doc); i++ {
			id, ok := ids[string(doc[i:i+k])]
			if !ok {
				id = int32(len(shared))
				ids[string(doc[i:i+k])] = id
				shared = append(shared, 0)
			}
			strs[d] = append(strs[d], id)
			if !seen[id] {
				seen[id] = true
				shared[id]++
			}
		}
	}
	common := slices.Clone(shared)
	mark, gen := make([]int, len(shared)), 0
	var parts []string
	for total := 0; total < size; {
		best, bestDoc, bestAt := 0, -1, 0
		for d, s := range strs {
			for p := 0; p+seg-k+1 <= len(s); p += 2 {
				gen++
				score := 0
				for _, id := range s[p : p+seg-k+1] {
					if mark[id] != gen {
						mark[id] = gen
						score += shared[id]
					}
				}
				if score > best {
					best, bestDoc, bestAt = score, d, p
				}
			}
		}
		if bestDoc < 0 {
			break
		}
		kept := make([]byte, 0, seg)
		for j := bestAt; j < bestAt+seg; j++ {
			for i := max(bestAt, j-k+1); i <= j && i+k <= bestAt+seg; i++ {
				if common[strs[bestDoc][i]] >= 3 {
					kept = append(kept, docs[bestDoc][j])
					break
				}
			}
		}
		for _, id := range strs[bestDoc][bestAt : bestAt+seg-k+1] {
			shared[id] = 0
		}
		parts = append(parts, string(kept))
		total += len(kept)
	}
	slices.Reverse(parts)
	dict := strings.Join(parts, "")
	return dict[max(0, len(dict)-size):]
}

// goConst spells dict as a Go constant of one line per 64 bytes: raw strings where they
// can be, quoted where not (a backtick, a control byte, a rune cut in two).
func goConst(name, dict string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "const %s = \"\" +\n", name)
	for i := 0; i < len(dict); i += 64 {
		line := dict[i:min(i+64, len(dict))]
		sep := " +"
		if i+64 >= len(dict) {
			sep = ""
		}
		if utf8.ValidString(line) && !strings.ContainsAny(line, "`\r\n\t") {
			fmt.Fprintf(&b, "\t`%s`%s\n", line, sep)
		} else {
			fmt.Fprintf(&b, "\t%s%s\n", strconv.Quote(line), sep)
		}
	}
	return b.String()
}

// TestWriteTraceDictionary builds a trace dictionary from the demo mix's files other than
// the held-out ones and writes it as Go to $TRACE_DICT_OUT (skipped without it). A
// dictionary in use never changes, since the traces deflated against it are read with it:
// a new one is a new constant and a new attribute (airecords_dict.go).
func TestWriteTraceDictionary(t *testing.T) {
	out := os.Getenv("TRACE_DICT_OUT")
	if out == "" {
		t.Skip("set TRACE_DICT_OUT=<file> to build a trace dictionary")
	}
	built, _ := demoMix(t)
	docs := traceCorpus(t, rand.New(rand.NewPCG(37, 1)), built...)
	size, _ := strconv.Atoi(os.Getenv("TRACE_DICT_SIZE"))
	dict := trainDictionary(docs, orDefault(size, 2048), 128, 6)
	if err := os.WriteFile(out, []byte(goConst("traceDictN", dict)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func orDefault(v, otherwise int) int {
	if v > 0 {
		return v
	}
	return otherwise
}

// With the dictionary a rules diagnosis's trace item fits one write unit (1 KB; issue 37
// §1): make cost's sample, and the held-out ones (the demo mix's files the dictionary was
// not built from, ids and times drawn at random) but for a few with a large payload.
func TestRulesTraceItemsFitOneWriteUnit(t *testing.T) {
	_, held := demoMix(t)
	docs := append(traceCorpus(t, rand.New(rand.NewPCG(5, 5)), held...), sampleTrace(t))
	var sizes []int
	for _, doc := range docs {
		var d audit.AIDoc
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		it := audit.TraceItem(d, doc)
		sizes = append(sizes, itemSize(it))
	}
	sample := sizes[len(sizes)-1]
	if sample > 1024 {
		t.Errorf("make cost's sample trace is an item of %d bytes, over 1 KB", sample)
	}
	sizes = sizes[:len(sizes)-1]
	over := 0
	for _, n := range sizes {
		if n > 1024 {
			over++
		}
	}
	slices.Sort(sizes)
	t.Logf("make cost's sample: %d bytes; held-out rules trace items: median %d, 90th percentile %d, largest %d; %d of %d over 1 KB",
		sample, sizes[len(sizes)/2], sizes[len(sizes)*9/10], sizes[len(sizes)-1], over, len(sizes))
	if over*100 > len(sizes)*2 {
		t.Errorf("%d of %d held-out rules trace items over 1 KB, want at most 2 %%", over, len(sizes))
	}
}
