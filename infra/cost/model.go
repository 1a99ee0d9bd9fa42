package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// lambdaFullVCPUMB is the memory at which a function gets one full vCPU; below it Lambda
// gives CPU in proportion to memory (Lambda developer guide, "Configure Lambda function
// memory").
const lambdaFullVCPUMB = 1769

// Invocations are one function's invocations on a path, with what one of them took.
type Invocations struct {
	Function string
	MemoryMB int
	// Count is the invocations for the path's N units.
	Count float64
	// WallMS is the mean duration of one, measured in process against the emulators.
	WallMS float64
	// CPUMS is the mean CPU time of this process per invocation, measured with getrusage
	// around invocations made one at a time.
	CPUMS float64
	// AWSCalls is the mean AWS calls per invocation, made one after another.
	AWSCalls float64
}

// BilledMS is the modelled duration of one invocation on Lambda, rounded up to the 1 ms
// Lambda bills by: its CPU time stretched by the CPU share its memory buys, plus one
// network round trip per AWS call (callMS: DynamoDB and SQS answer in single-digit
// milliseconds inside a region). The emulators on loopback answer in well under a
// millisecond, so WallMS alone would undercount.
func (i Invocations) BilledMS(callMS float64) float64 {
	share := math.Min(1, float64(i.MemoryMB)/lambdaFullVCPUMB)
	return math.Ceil(i.CPUMS/share + i.AWSCalls*callMS)
}

// Path is what one path through the service asked of AWS for N units of work (sync
// errors, flow events, tenant-days).
type Path struct {
	Name, Unit string
	N          float64
	// PerUnits is how many units a bill is for (default a million).
	PerUnits float64
	// APIRequests are the API Gateway requests of the N units.
	APIRequests float64
	Lambdas     []Invocations
	// Usage is what the meter counted (DynamoDB units and calls, SQS, KMS, EventBridge).
	Usage Usage
	// Stages split Usage by the function that made the calls, when there are several.
	Stages []Stage
	// SQSRequests are SQS requests the meter cannot see: the event source mapping's
	// receives and deletes.
	SQSRequests float64
	// KMSRequests are the key keeper's calls (Decrypt of a data key; a warm function
	// remembers each).
	KMSRequests float64
	// LogBytes is what reaches CloudWatch Logs: the functions' lines, their EMF lines, the
	// Lambda runtime's START/END/REPORT lines and the API's access log lines.
	LogBytes float64
}

// Stage is one function's share of a path's usage.
type Stage struct {
	Name  string
	Usage Usage
	// Row is a claim row's shape after the stage, when the path has one.
	Row RowShape
}

// Line is one priced line of a path's bill per million units.
type Line struct {
	Service, Item string
	Quantity      float64
	Unit          string
	USD           float64
}

// Lines prices the path per million of its units at p, callMS being the assumed latency of
// one AWS call inside the region. Lines come largest first.
func (pa Path) Lines(p Prices, callMS float64) []Line {
	scale := pa.per() / pa.N
	var out []Line
	add := func(service, item string, qty float64, unit string, usd float64) {
		if qty > 0 {
			out = append(out, Line{service, item, qty, unit, usd})
		}
	}
	add("API Gateway", "HTTP API requests", pa.APIRequests*scale, "requests", pa.APIRequests*scale/1e6*p.APIGatewayPerMillion)
	for _, l := range pa.Lambdas {
		n := l.Count * scale
		add("Lambda", l.Function+" invocations", n, "requests", n/1e6*p.LambdaRequestsPerMillion)
		gbs := n * l.BilledMS(callMS) / 1000 * float64(l.MemoryMB) / 1024
		add("Lambda", fmt.Sprintf("%s duration (%.0f ms at %d MB)", l.Function, l.BilledMS(callMS), l.MemoryMB), gbs, "GB-s",
			gbs*p.LambdaGBSecondARM)
	}
	for _, k := range slices.Sorted(maps.Keys(pa.Usage.Units)) {
		q := pa.Usage.Units[k] * scale
		price := p.DynamoRRUPerMillion
		if strings.HasPrefix(k, "WRU") {
			price = p.DynamoWRUPerMillion
		}
		unit, item, _ := strings.Cut(k, " ")
		add("DynamoDB", item, q, unit, q/1e6*price)
	}
	sqs := pa.SQSRequests
	for op, n := range pa.Usage.Calls {
		if strings.HasPrefix(op, "sqs.") {
			sqs += float64(n)
		}
	}
	add("SQS", "requests", sqs*scale, "requests", sqs*scale/1e6*p.SQSPerMillion)
	add("KMS", "Decrypt of data keys", pa.KMSRequests*scale, "requests", pa.KMSRequests*scale/1e4*p.KMSPer10K)
	ev := float64(pa.Usage.Events) * scale
	add("EventBridge", "alert events", ev, "events", ev/1e6*p.EventBridgePerMillion)
	gb := pa.LogBytes * scale / (1 << 30)
	add("CloudWatch Logs", "ingested", gb, "GB", gb*p.LogsIngestPerGB)
	sort.SliceStable(out, func(i, j int) bool { return out[i].USD > out[j].USD })
	return out
}

func (pa Path) per() float64 {
	if pa.PerUnits > 0 {
		return pa.PerUnits
	}
	return 1e6
}

// Total sums lines.
func Total(lines []Line) float64 {
	t := 0.0
	for _, l := range lines {
		t += l.USD
	}
	return t
}

// DynamoCalls is the path's DynamoDB calls per unit, by operation.
func (pa Path) DynamoCalls() (float64, string) {
	total := 0
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(pa.Usage.Calls)) {
		name, ok := strings.CutPrefix(op, "dynamodb.")
		if !ok {
			continue
		}
		total += pa.Usage.Calls[op]
		parts = append(parts, fmt.Sprintf("%s %.2f", name, float64(pa.Usage.Calls[op])/pa.N))
	}
	return float64(total) / pa.N, strings.Join(parts, ", ")
}

// KeysOnlySaving is what the path's bill per million units would lose if every index of
// table were projected KEYS_ONLY, and the index WRU per unit before and after.
func (pa Path) KeysOnlySaving(p Prices, table string) (usd, before, after float64) {
	for k, v := range pa.Usage.Units {
		if strings.HasPrefix(k, "WRU "+table+"/") {
			before += v
			after += pa.Usage.KeysOnly[k]
		}
	}
	return (before - after) * pa.per() / pa.N / 1e6 * p.DynamoWRUPerMillion, before / pa.N, after / pa.N
}

// Write prints the path's bill per million units.
func (pa Path) Write(w io.Writer, p Prices, callMS float64) {
	lines := pa.Lines(p, callMS)
	calls, byOp := pa.DynamoCalls()
	per := "million " + pa.Unit + "s"
	if pa.per() != 1e6 {
		per = fmt.Sprintf("%g %ss", pa.per(), pa.Unit)
	}
	fmt.Fprintf(w, "\n== %s: $%.4f per %s (measured over %g)\n", pa.Name, Total(lines), per, pa.N)
	fmt.Fprintf(w, "DynamoDB calls per %s: %.2f (%s)\n", pa.Unit, calls, byOp)
	for _, st := range pa.Stages {
		calls, byOp := Path{N: pa.N, Usage: st.Usage}.DynamoCalls()
		wru := 0.0
		for k, v := range st.Usage.Units {
			if strings.HasPrefix(k, "WRU") {
				wru += v
			}
		}
		fmt.Fprintf(w, "  %s: %.2f DynamoDB calls (%s), %.1f WRU per %s:", st.Name, calls, byOp, wru/pa.N, pa.Unit)
		for _, k := range slices.Sorted(maps.Keys(st.Usage.Units)) {
			if v := st.Usage.Units[k]; v > 0 {
				fmt.Fprintf(w, " %s %.2f;", k, v/pa.N)
			}
		}
		fmt.Fprintln(w)
		st.Row.write(w, st.Name)
	}
	for _, l := range pa.Lambdas {
		fmt.Fprintf(w, "%s: %.3f invocations per %s; per invocation %.2f ms wall on the emulators, %.2f ms CPU, %.1f AWS calls\n",
			l.Function, l.Count/pa.N, pa.Unit, l.WallMS, l.CPUMS, l.AWSCalls)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "service\titem\tper %s\tunit\tUSD\tshare\n", per)
	total := Total(lines)
	for _, l := range lines {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.4f\t%.0f%%\n", l.Service, l.Item, human(l.Quantity), l.Unit, l.USD, 100*l.USD/total)
	}
	_ = tw.Flush()
}

// human prints a quantity with three significant digits.
func human(q float64) string {
	switch {
	case q >= 1e6:
		return fmt.Sprintf("%.3gM", q/1e6)
	case q >= 1e3:
		return fmt.Sprintf("%.3gk", q/1e3)
	}
	return fmt.Sprintf("%.3g", q)
}
