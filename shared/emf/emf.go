// Package emf writes CloudWatch metrics in the embedded metric format: JSON lines on
// stdout, which CloudWatch Logs turns into metrics without an API call. It writes past the
// logger on purpose, so a metric is never lost to a log level set to warn. An
// invocation's metrics share as few lines as the format allows (Collect): the logs are
// billed by the byte, and each line repeats the format's metadata.
package emf

import (
	"io"
	"os"
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
// counts. While an invocation's Batch collects (Collect), m joins it instead and is
// written with the invocation's other metrics, in as few lines as the format allows.
func Emit(m Metric) {
	if Out == io.Discard {
		return // nothing reads the line here: do not pay for building it
	}
	if hold(m) {
		return
	}
	_ = Write(nil, m)
}

// Write emits m to w (Out when nil) as one EMF line, now: whoever asks for the error
// gets the line's, so no Batch holds it.
func Write(w io.Writer, m Metric) error {
	if w == nil {
		w = Out
	}
	e, err := encode(m)
	if err != nil {
		return err
	}
	var d document
	d.add(e)
	return d.writeTo(w)
}
