package syncerror

import "encoding/json"

// A flow's failed write is a sync error of the record the flow wrote (flow/wire's
// Reporter), and its approved fix is written there. A run of a flow with a match can fail
// before it knows that record: the create was refused, several records hold the match
// key, the cross-reference failed for good. Such a row names no record (its RecordID is a
// stand-in no system uses as an id) and its context says so, under FlowTargetUnknownKey;
// an approve of it is refused (CodeTargetRecordUnknown) with nothing read or written,
// since any id it wrote to would be a guess: the source record's id is another record of
// the target system, or none. Its retry re-runs the flow, which finds the record through
// its match (the approved fix, if any, in place of the mapped values).

// FlowTargetUnknownKey is the member of a flow row's context.flow that says the run did
// not know its target record.
const FlowTargetUnknownKey = "targetRecordUnknown"

// CodeTargetRecordUnknown is the problem of an approve of a flow row whose target record
// is not known.
const CodeTargetRecordUnknown = "target_record_unknown"

// TargetRecordUnknownReason is what a refused approve (or write) of such a row says.
const TargetRecordUnknownReason = "the flow's run failed before it knew which record of the target system to write " +
	"(its match could not pick the record, or the create was refused), so there is no record to write this fix to; " +
	"nothing was written. Retry the sync error to run the flow again (it finds the record through its match), after " +
	"linking the counterpart (Flows › Cross-reference, PUT /api/flows/xrefs) if the match cannot pick it"

// FlowTargetUnknown reports whether c is a flow's failed write whose target record the
// run did not know.
func FlowTargetUnknown(c Claim) bool {
	if c.Source != SourceFlow {
		return false
	}
	var fc struct {
		Flow map[string]json.RawMessage `json:"flow"`
	}
	if json.Unmarshal(c.Record.Context, &fc) != nil {
		return false
	}
	var unknown bool
	return json.Unmarshal(fc.Flow[FlowTargetUnknownKey], &unknown) == nil && unknown
}
