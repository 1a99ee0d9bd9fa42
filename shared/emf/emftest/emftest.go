// Package emftest reads EMF lines back as the datapoints CloudWatch would extract from
// them, so a test says what was reported whatever the lines it was packed into.
package emftest

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Datapoint is one value CloudWatch would store: a metric of a namespace under one
// dimension set's values, in the minute it is aggregated in (standard resolution).
type Datapoint struct {
	Namespace, Name, Unit string
	Dimensions            string // "key=value" pairs in the set's order, comma-separated; "" for the aggregate
	Value                 float64
	Minute                time.Time
}

func (d Datapoint) String() string {
	return fmt.Sprintf("%s/%s{%s} %g %s @%s", d.Namespace, d.Name, d.Dimensions, d.Value, d.Unit, d.Minute.Format(time.RFC3339))
}

type metadata struct {
	Timestamp         *int64
	CloudWatchMetrics []struct {
		Namespace  string
		Dimensions [][]string
		Metrics    []struct{ Name, Unit string }
	}
}

// Parse returns the datapoints of every EMF document in log, one a line (other lines
// are skipped), as sorted strings, and how many documents there were. A document
// CloudWatch would refuse (a missing member, a dimension that is not a string, a limit
// passed) is an error, and so is an array of values, which package emf never writes.
func Parse(log []byte) (points []string, docs int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var root map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &root) != nil || root["_aws"] == nil {
			continue
		}
		dps, err := document(root)
		if err != nil {
			return nil, docs, fmt.Errorf("%w in %s", err, sc.Bytes())
		}
		docs++
		for _, d := range dps {
			points = append(points, d.String())
		}
	}
	slices.Sort(points)
	return points, docs, sc.Err()
}

func document(root map[string]json.RawMessage) ([]Datapoint, error) {
	var meta metadata
	if err := json.Unmarshal(root["_aws"], &meta); err != nil || meta.Timestamp == nil {
		return nil, fmt.Errorf("metadata %s", root["_aws"])
	}
	minute := time.UnixMilli(*meta.Timestamp).UTC().Truncate(time.Minute)
	var out []Datapoint
	for _, dir := range meta.CloudWatchMetrics {
		if len(dir.Metrics) > 100 {
			return nil, fmt.Errorf("%d metrics in a directive", len(dir.Metrics))
		}
		for _, set := range dir.Dimensions {
			dims, err := dimensions(root, set)
			if err != nil {
				return nil, err
			}
			for _, m := range dir.Metrics {
				var v float64
				if err := json.Unmarshal(root[m.Name], &v); err != nil {
					return nil, fmt.Errorf("metric %s: %s", m.Name, root[m.Name])
				}
				out = append(out, Datapoint{Namespace: dir.Namespace, Name: m.Name, Unit: cmp.Or(m.Unit, "None"),
					Dimensions: dims, Value: v, Minute: minute})
			}
		}
	}
	return out, nil
}

func dimensions(root map[string]json.RawMessage, set []string) (string, error) {
	if len(set) > 30 {
		return "", fmt.Errorf("%d dimensions in a set", len(set))
	}
	pairs := make([]string, 0, len(set))
	for _, k := range set {
		var v string
		if err := json.Unmarshal(root[k], &v); err != nil {
			return "", fmt.Errorf("dimension %s: %s", k, root[k])
		}
		pairs = append(pairs, k+"="+v)
	}
	return strings.Join(pairs, ","), nil
}
