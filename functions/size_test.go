package functions_test

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// The size limits of the functions' linux/arm64 bootstraps (issue 37 §4). A binary's size
// is what its main links: a main that starts one feature's whole wiring links every
// route's dependencies (the guard, the connectors, each SDK client's model, and any
// imported package's initialisers whether called or not), and a larger binary is a longer
// cold start, for the ingest one every host ERP waits on.
const (
	maxFunctionBytes = 10 << 20
	maxIngestBytes   = 8 << 20
)

// overLimit are the functions over their limit, each allowed no more than it was when
// listed (a ratchet: one that grows fails, one that gets within its limit fails until it is
// taken off the list). None is now. The last was the ingest (8.31 MiB on 2026-11-29): what
// took it under 8 MiB, on 2026-11-30, was HTTP/2 left out of net/http (the build tag
// nethttpomithttp2, 0.31 MiB: no endpoint a function calls needs it) and the diagnosis
// queue's one SendMessage made over awsjson (sqsqueue/sqsjson) instead of the SDK's SQS
// client and its model (0.31 MiB): 7.69 MiB. What it links beyond a Lambda with the
// DynamoDB client alone is what the webhook serves (the DLP mask, the claim store, the JSON
// log, the mux, tenants and host auth).
var overLimit = map[string]float64{}

// allowance is what the function called name may weigh: its limit, or its entry in the
// ratchet.
func allowance(name string) (limit, allowed int64) {
	limit = maxFunctionBytes
	if name == blueprint.FuncIngest {
		limit = maxIngestBytes
	}
	if a, ok := overLimit[name]; ok {
		return limit, int64(a * (1 << 20))
	}
	return limit, limit
}

// Every function's bootstrap is within its limit: the ones make build wrote
// (FUNCTION_BINARIES=build/functions, as make test-sizes sets), the binaries a deploy ships.
// Without it the test is skipped: go test ./... need not cross-build every function.
func TestFunctionBinariesWithinTheirLimits(t *testing.T) {
	dir := os.Getenv("FUNCTION_BINARIES")
	if dir == "" {
		t.Skip("set FUNCTION_BINARIES=build/functions after make build (make test-sizes does both)")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", dir) // as named from the repository's root, not this package's
	}
	sizes := builtSizes(dir)
	var rows, notes []string
	for _, f := range blueprint.Functions {
		size, ok := sizes[f.Name]
		if !ok {
			t.Errorf("%s: no binary", f.Name)
			continue
		}
		limit, allowed := allowance(f.Name)
		row := fmt.Sprintf("%-34s %6.2f MiB (limit %.0f)", f.Name, mib(size), mib(limit))
		rows = append(rows, row)
		switch {
		case allowed > limit:
			notes = append(notes, fmt.Sprintf("%s, allowed %.2f on the ratchet", row, mib(allowed)))
		case limit != maxFunctionBytes:
			notes = append(notes, row)
		}
		switch {
		case size > allowed && allowed > limit:
			t.Errorf("%s is %.2f MiB, over the %.2f MiB the ratchet allows it (its limit is %.0f MiB): see what it links that it does not serve (go version -m, go tool nm -size -sort size on an unstripped build, go list -deps ./functions/%s)",
				f.Name, mib(size), mib(allowed), mib(limit), f.Name)
		case size > allowed:
			t.Errorf("%s is %.2f MiB, over its %.0f MiB limit: see what it links that it does not serve (go version -m, go tool nm -size -sort size on an unstripped build, go list -deps ./functions/%s)",
				f.Name, mib(size), mib(limit), f.Name)
		case allowed > limit && size <= limit:
			t.Errorf("%s is %.2f MiB, within its %.0f MiB limit: take it off the ratchet (overLimit)", f.Name, mib(size), mib(limit))
		}
	}
	slices.SortFunc(rows, func(a, b string) int { return cmp.Compare(b[35:], a[35:]) })
	t.Logf("largest bootstraps:\n%s\nwith limits of their own:\n%s", strings.Join(rows[:min(8, len(rows))], "\n"), strings.Join(notes, "\n"))
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// builtSizes are the sizes of the bootstraps under dir, by function name.
func builtSizes(dir string) map[string]int64 {
	out := map[string]int64{}
	for _, f := range blueprint.Functions {
		if st, err := os.Stat(filepath.Join(dir, f.Name, "bootstrap")); err == nil {
			out[f.Name] = st.Size()
		}
	}
	return out
}

// A function links the SQS client (0.37 MiB) only when the blueprint says it sends to a
// queue: the queue's operator functions and diagnose send nothing, so they build the
// queue's wiring without the diagnosis queue's sender (syncerror/wire; the senders use
// queuewire or ingestwire); the flows' admin routes build theirs without a run's delivery
// (flow/adminwire; the change event, the poll and the redrive use flow/wire).
func TestOnlySendersLinkTheSQSClient(t *testing.T) {
	all := deps(t, "../functions/...")
	for _, f := range blueprint.Functions {
		if len(f.SendsTo) > 0 {
			continue
		}
		if slices.Contains(all[module+"functions/"+f.Name], "github.com/aws/aws-sdk-go-v2/service/sqs") {
			t.Errorf("%s sends to no queue but links the SQS client", f.Name)
		}
	}
}
