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

// Out is where lines go: stdout, read by Lambda's log capture. Tests replace it.
var Out io.Writer = os.Stdout

var mu sync.Mutex // one line per Write, even from concurrent goroutines

// Metric is one line: counts by name, the dimensions they are reported under (names of
// Fields members; none for a service-wide metric), and fields searchable in Logs Insights.
type Metric struct {
	Time       time.Time
	Counts     map[string]float64
	Dimensions []string
	Fields     map[string]any
}

// Write emits m to w (Out when nil) as one EMF line.
func Write(w io.Writer, m Metric) error {
	if w == nil {
		w = Out
	}
	defs := make([]map[string]string, 0, len(m.Counts))
	for _, name := range slices.Sorted(maps.Keys(m.Counts)) {
		defs = append(defs, map[string]string{"Name": name, "Unit": "Count"})
	}
	dims := m.Dimensions
	if dims == nil {
		dims = []string{}
	}
	doc := map[string]any{}
	maps.Copy(doc, m.Fields)
	for name, v := range m.Counts {
		doc[name] = v
	}
	doc["_aws"] = map[string]any{
		"Timestamp":         m.Time.UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{"Namespace": Namespace, "Dimensions": [][]string{dims}, "Metrics": defs}},
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
