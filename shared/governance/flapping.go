package governance

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
)

// Flapping: the last line against loops. Hop chains break every loop whose values come
// back unchanged; a loop in which a system rewrites the value on each pass (two systems
// formatting a phone number each their own way, a computed field fed back into its
// input) yields a fresh value every time and so a fresh trace. What such a loop cannot
// hide is its rate: the same field of the same record written again and again. So a flow
// write counts, per target record and field, the writes in fixed windows; a field at the
// limit is broken like a loop, with breaking condition "flapping".

// Defaults of the flapping cap. Ten writes of one field of one record in ten minutes is
// one a minute sustained: more than people editing a record produce (an edit, a
// correction, a revert), and bulk loads write each record once; a loop between two
// systems that push changes goes round in seconds and reaches it within a minute, so it
// costs at most ten writes of a field per window. The window is fixed (a counter per ten
// minutes by the clock), so a burst across a window boundary may see up to twice the
// limit; as a backstop that is enough.
const (
	DefaultFlapLimit  = 10
	DefaultFlapWindow = 10 * time.Minute
)

// FlapCondition is the breaking condition of a loop detection made by the flapping cap.
const FlapCondition = "flapping"

// FlapCounter counts writes of records' fields in windows.
type FlapCounter interface {
	// CountWrites adds one write to the counter of each of fields of record key in the
	// window starting at window, for the fields whose counter is below limit, and
	// returns the fields that were at the limit already (not counted). Counters expire
	// after their window.
	CountWrites(ctx context.Context, tenant, key string, window time.Time, fields []string, limit int) (over []string, err error)
}

// checkFlapping counts this flow write per field and takes out the fields at the cap.
// Only flow writes (those with traces) are counted: an operator's fix or a finance
// approval is one deliberate write, not a feedback loop.
func (op *writeOp) checkFlapping(fields map[string]any) (map[string]any, error) {
	g := op.g
	if g.flaps == nil || op.req.Link == nil || len(op.req.Link.Traces) == 0 {
		return fields, nil
	}
	window := op.now.Truncate(g.flapWindow)
	key := trailKey(op.req.Target, op.req.Entity, op.req.RecordID)
	over, err := g.flaps.CountWrites(op.ctx, op.tenant, key, window, op.names, g.flapLimit)
	if err != nil {
		op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
		return nil, fmt.Errorf("%w: counting writes: %w", ErrUnavailable, err)
	}
	if len(over) == 0 {
		return fields, nil
	}
	cond := fmt.Sprintf("%s: %s written %d times since %s (at most %d per %s)", FlapCondition, strings.Join(over, ", "),
		g.flapLimit, window.UTC().Format(time.RFC3339), g.flapLimit, g.flapWindow)
	return op.breakFields(fields, over, cond)
}
