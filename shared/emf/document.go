package emf

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"time"
)

// The embedded metric format's limits (CloudWatch, "Specification: Embedded metric
// format", https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
// a directive's Metrics array holds at most 100 definitions, which this package takes
// for the whole document, as the Powertools libraries do; a document is one log event,
// which the page has limited to 256 KB (1 MB since the event limit grew: the smaller is
// kept). A DimensionSet's limit of 30 keys is the caller's: packing never changes a set.
const (
	maxMetrics       = 100
	maxDocumentBytes = 256 << 10
)

// document is one EMF line being built from one or more metrics. Every dimension value,
// metric value and field is a member of the root, shared by every directive, so a metric
// joins only if none of its members would change what another reads: no key with a
// different value, no metric name twice.
type document struct {
	time       time.Time
	members    map[string]json.RawMessage
	metrics    map[string]bool // the members that are metric values
	directives []directive
	count      int // metric definitions
	size       int // an overestimate of the encoded line
}

type directive struct {
	Namespace  string
	Dimensions [][]string
	Metrics    []definition
}

type definition struct{ Name, Unit string }

// encoded is a metric as the members and definitions it adds to a document.
type encoded struct {
	m       Metric
	members map[string]json.RawMessage
	sets    [][]string
	defs    []definition
	size    int
}

// encode marshals m's members once: they are compared with a document's as bytes, the
// form CloudWatch reads (an int and a float64 of one value are one member).
func encode(m Metric) (encoded, error) {
	e := encoded{m: m, members: make(map[string]json.RawMessage, len(m.Fields)+len(m.Counts)),
		defs: make([]definition, 0, len(m.Counts))}
	for k, v := range m.Fields {
		raw, err := json.Marshal(v)
		if err != nil {
			return e, err
		}
		e.members[k] = raw
	}
	for name, v := range m.Counts { // a count wins over a field of its name, as one line always had it
		raw, err := json.Marshal(v)
		if err != nil {
			return e, err
		}
		e.members[name] = raw
	}
	for _, name := range slices.Sorted(maps.Keys(m.Counts)) {
		unit := "Count"
		if u, ok := m.Units[name]; ok {
			unit = u
		}
		e.defs = append(e.defs, definition{Name: name, Unit: unit})
	}
	// The dimensioned set, its rollups, and the service-wide aggregate beside them, which
	// alarms watch.
	if len(m.Dimensions) > 0 {
		e.sets = append(append(e.sets, m.Dimensions), m.Rollups...)
	}
	e.sets = append(e.sets, []string{})
	for k, raw := range e.members {
		e.size += len(k) + len(raw) + 4
	}
	sets, _ := json.Marshal(e.sets)
	e.size += len(sets) + len(e.defs)*64 + 64
	return e, nil
}

// selfContained reports whether every dimension m declares is one of its own fields. One
// that is not would, in a shared document, take another metric's value for it; alone it
// is what it always was.
func (e encoded) selfContained() bool {
	for _, set := range e.sets {
		for _, k := range set {
			if _, ok := e.m.Fields[k]; !ok {
				return false
			}
		}
	}
	return true
}

// fits reports whether e can join d without changing any datapoint of either: d is
// empty, or e is of the same minute (CloudWatch's finest standard resolution, so the
// document's one Timestamp puts every datapoint in the minute it was emitted in), within
// the limits, and shares with d only members of equal value, none a metric.
func (d *document) fits(e encoded) bool {
	if len(d.directives) == 0 {
		return true
	}
	if !e.m.Time.Truncate(time.Minute).Equal(d.time.Truncate(time.Minute)) ||
		d.count+len(e.defs) > maxMetrics || d.size+e.size > maxDocumentBytes {
		return false
	}
	for k, raw := range e.members {
		have, ok := d.members[k]
		_, metric := e.m.Counts[k]
		if ok && (metric || d.metrics[k] || !bytes.Equal(have, raw)) {
			return false
		}
	}
	return true
}

// add puts e into d, which must fit it. A metric whose dimension sets are a directive's
// already joins that directive.
func (d *document) add(e encoded) {
	if len(d.directives) == 0 {
		d.time = e.m.Time
		d.members, d.metrics = map[string]json.RawMessage{}, map[string]bool{}
	}
	maps.Copy(d.members, e.members)
	for name := range e.m.Counts {
		d.metrics[name] = true
	}
	d.count += len(e.defs)
	d.size += e.size
	for i := range d.directives {
		if slices.EqualFunc(d.directives[i].Dimensions, e.sets, slices.Equal) {
			d.directives[i].Metrics = append(d.directives[i].Metrics, e.defs...)
			return
		}
	}
	d.directives = append(d.directives, directive{Namespace: Namespace, Dimensions: e.sets, Metrics: e.defs})
}

// line is d as one EMF line, members in key order.
func (d *document) line() ([]byte, error) {
	root := maps.Clone(d.members)
	meta, err := json.Marshal(map[string]any{"Timestamp": d.time.UnixMilli(), "CloudWatchMetrics": d.directives})
	if err != nil {
		return nil, err
	}
	root["_aws"] = meta
	line, err := json.Marshal(root)
	return append(line, '\n'), err
}

// writeTo writes d, if it holds anything, and empties it.
func (d *document) writeTo(w io.Writer) error {
	if len(d.directives) == 0 {
		return nil
	}
	line, err := d.line()
	*d = document{}
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	_, err = w.Write(line)
	return err
}
