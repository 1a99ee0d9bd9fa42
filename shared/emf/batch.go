package emf

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Batch holds the metrics an invocation emits (a request, an SQS batch, a scheduled run)
// to write them as few EMF lines as the format allows: each line's metadata and shared
// fields are written once instead of once per metric. Metrics are packed greedily in
// emission order into the document being filled; one that does not fit (document.fits)
// writes that document and starts the next, so a Batch holds at most one line's worth.
//
// Emit takes no context, and its callers are many and span the features, so the Batch
// is found by the process rather than the context: it collects while it is the only one
// open. Lambda runs one invocation at a time in an environment, so there it is always
// the invocation's. Where invocations overlap in one process (the local stack, a
// function run with several invocations at once, nested entry points), no Batch
// collects and every metric is written at once, as without one: never mixed up, never
// held back.
type Batch struct {
	doc   document
	timer *time.Timer
}

var (
	batchMu sync.Mutex // guards open and every open Batch's document
	open    []*Batch
)

// FlushAhead is how long before the invocation's deadline a Batch writes what it holds
// and stops holding: Lambda stops a function that overruns its timeout without running
// its defers, and a timed-out invocation's metrics are the ones on call looks for. An
// EMF line is a write to stdout, microseconds; the margin is for a loaded host's
// scheduling, and metrics emitted after it are written at once.
const FlushAhead = 250 * time.Millisecond

// Collect opens a Batch for the invocation whose context is ctx. The caller must Flush
// it when the invocation ends, in a defer so that a panic or an error loses nothing:
//
//	defer emf.Collect(ctx).Flush()
//
// When ctx has a deadline (Lambda's), the Batch also flushes FlushAhead before it.
func Collect(ctx context.Context) *Batch {
	b := &Batch{}
	batchMu.Lock()
	defer batchMu.Unlock()
	open = append(open, b)
	if deadline, ok := ctx.Deadline(); ok {
		b.timer = time.AfterFunc(time.Until(deadline)-FlushAhead, b.Flush)
	}
	return b
}

// Flush writes what b holds to Out and closes it; later metrics are written at once.
// Writing fails silently, as Emit does. A second Flush writes nothing.
func (b *Batch) Flush() {
	batchMu.Lock()
	defer batchMu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
	open = slices.DeleteFunc(open, func(o *Batch) bool { return o == b })
	_ = b.doc.writeTo(Out)
}

// hold adds m to the collecting Batch, if one is, and reports whether it did. A metric
// that cannot be encoded, or names a dimension it has no field for, is left to Write.
func hold(m Metric) bool {
	batchMu.Lock()
	defer batchMu.Unlock()
	if len(open) != 1 {
		return false
	}
	e, err := encode(m)
	if err != nil || !e.selfContained() {
		return false
	}
	d := &open[0].doc
	if !d.fits(e) {
		_ = d.writeTo(Out)
	}
	d.add(e)
	return true
}
