package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/platform"
)

// dynamoCalls counts the DynamoDB requests a stage makes, by operation (the X-Amz-Target
// of the JSON protocol), so a figure per flow event is a count, not an estimate.
type dynamoCalls struct {
	mu   sync.Mutex
	ops  map[string]int
	next http.RoundTripper
}

func (d *dynamoCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	if op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810."); ok {
		d.mu.Lock()
		d.ops[op]++
		d.mu.Unlock()
	}
	return d.next.RoundTrip(r)
}

// take returns the counts so far and starts again.
func (d *dynamoCalls) take() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.ops
	d.ops = map[string]int{}
	return out
}

// perEvent renders counts divided by n: "9.0 (GetItem 2.0, PutItem 4.0, …)".
func perEvent(ops map[string]int, n int) string {
	total := 0
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		total += ops[op]
		parts = append(parts, fmt.Sprintf("%s %.1f", op, float64(ops[op])/float64(n)))
	}
	return fmt.Sprintf("%.1f (%s)", float64(total)/float64(n), strings.Join(parts, ", "))
}

// loadCounted is compose.Load with the AWS clients' HTTP requests counted.
func loadCounted(ctx context.Context) (*compose.Stack, *dynamoCalls, error) {
	cfg, err := platform.ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	awsCfg, err := platform.AWSConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	calls := &dynamoCalls{ops: map[string]int{}, next: awshttp.NewBuildableClient().GetTransport()}
	awsCfg.HTTPClient = &http.Client{Transport: calls}
	deps, err := compose.New(ctx, platform.New(cfg, awsCfg, os.Getenv))
	return deps, calls, err
}
