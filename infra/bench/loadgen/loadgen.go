// Package loadgen is the load generator the ingest benchmark and the fault suite share:
// it runs a function n times on a fixed number of workers, keeping each call's latency,
// and posts sync errors signed as the host ERP signs them.
package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Result is one measurement.
type Result struct {
	Name     string
	N        int
	Elapsed  time.Duration
	Lat      []time.Duration
	Failures int64
	// ServerCPU is the CPU time the emulator (dynalite) used over the measurement, when
	// the caller read it (zero otherwise).
	ServerCPU time.Duration
}

// ServerPerCall is the emulator's CPU time per call.
func (r Result) ServerPerCall() time.Duration {
	if r.N == 0 {
		return 0
	}
	return r.ServerCPU / time.Duration(r.N)
}

// Rate is calls per second over the whole measurement.
func (r Result) Rate() float64 { return float64(r.N) / r.Elapsed.Seconds() }

// Quantile is the latency at q (0.5 for the median, 0.99), nearest rank.
func (r Result) Quantile(q float64) time.Duration {
	if len(r.Lat) == 0 {
		return 0
	}
	sorted := slices.Clone(r.Lat)
	slices.Sort(sorted)
	return sorted[int(q*float64(len(sorted)-1))]
}

func (r Result) String() string {
	s := fmt.Sprintf("%-34s %6d req  %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  failures %d",
		r.Name, r.N, r.Rate(), MS(r.Quantile(0.5)), MS(r.Quantile(0.99)), r.Failures)
	if r.ServerCPU > 0 {
		s += fmt.Sprintf("  dynalite %4d µs/req, busy %3.0f %%", r.ServerPerCall().Microseconds(),
			100*r.ServerCPU.Seconds()/r.Elapsed.Seconds())
	}
	return s
}

// MS is d in milliseconds with microsecond resolution.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Measure runs fn(i) for i in [0,n) on conc workers. A failing call is counted (the
// first one's error is printed to stderr) and its latency kept.
func Measure(name string, n, conc int, fn func(i int) error) Result {
	lat := make([]time.Duration, n)
	var next, failures int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(atomic.AddInt64(&next, 1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := fn(i); err != nil {
					if atomic.AddInt64(&failures, 1) == 1 {
						fmt.Fprintln(os.Stderr, name+":", err)
					}
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	return Result{Name: name, N: n, Elapsed: time.Since(start), Lat: lat, Failures: failures}
}

// Answer is what the service answered a post.
type Answer struct {
	Status int
	Body   []byte
}

// PostSigned posts body to url as tenantID's host ERP does: JSON, X-Tenant-Id, and a
// Standard Webhooks signature with key under msgID (a retry of the same message keeps
// its id and signs again, as senders do).
func PostSigned(ctx context.Context, client *http.Client, url, tenantID string, key []byte, msgID string, body []byte) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(intake.HeaderTenantID, tenantID)
	webhook.Sign(key, msgID, time.Now(), body).Set(req.Header)
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return Answer{Status: resp.StatusCode, Body: out}, err
}
