// Package emf writes CloudWatch metrics in the embedded metric format: one JSON line on
// stdout, which CloudWatch Logs turns into metrics without an API call. It writes past the
// logger on purpose, so a metric is never lost to a log level set to warn.
package emf

import (
	"encoding/json"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"time"
)

// Namespace is the service's metric namespace.
const Namespace = "SyncAssist"

// Out is where lines go: stdout in Lambda, read by its log capture; elsewhere (tests, the
// local stack) nowhere, since no CloudWatch reads them and they would drown the logs.
var Out io.Writer = defaultOut()

func defaultOut() io.Writer {
	if os.Getenv("AWS_LAMBDA_FUNCTION_NAME") != "" {
		return os.Stdout
	}
	return io.Discard
}

var mu sync.Mutex // one line per Write, even from concurrent goroutines

// Metric is one line: counts by name, the dimensions they are reported under (names of
// Fields members; none for a service-wide metric), and fields searchable in Logs Insights.
type Metric struct {
	Time       time.Time
	Counts     map[string]float64
	Dimensions []string
	// Rollups are further dimension sets the counts are also reported under, each a subset
	// of Dimensions: an alarm can watch one value of one dimension (decision=loop_blocked)
	// without a math expression over every combination of the others.
	Rollups [][]string
	Fields  map[string]any
	// Units names the unit of a metric of Counts that is not a count ("Milliseconds").
	Units map[string]string
}

// Emit writes m to Out, logging nothing on failure: a metric must never fail the work it
// counts.
func Emit(m Metric) {
	if Out == io.Discard {
		return // nothing reads the line here: do not pay for building it
	}
	_ = Write(nil, m)
}

// Write emits m to w (Out when nil) as one EMF line.
func Write(w io.Writer, m Metric) error {
	if w == nil {
		w = Out
	}
	defs := make([]map[string]string, 0, len(m.Counts))
	for _, name := range slices.Sorted(maps.Keys(m.Counts)) {
		unit := "Count"
		if u, ok := m.Units[name]; ok {
			unit = u
		}
		defs = append(defs, map[string]string{"Name": name, "Unit": unit})
	}
	// The dimensioned set, its rollups, and the service-wide aggregate beside them, which
	// alarms watch.
	sets := make([][]string, 0, len(m.Rollups)+2)
	if len(m.Dimensions) > 0 {
		sets = append(sets, m.Dimensions)
		sets = append(sets, m.Rollups...)
	}
	sets = append(sets, []string{})
	doc := map[string]any{}
	maps.Copy(doc, m.Fields)
	for name, v := range m.Counts {
		doc[name] = v
	}
	doc["_aws"] = map[string]any{
		"Timestamp":         m.Time.UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{"Namespace": Namespace, "Dimensions": sets, "Metrics": defs}},
	}
	line, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	_, err = w.Write(append(line, '\n'))
	return err
}
