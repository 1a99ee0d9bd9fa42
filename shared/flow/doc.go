// Package flow is the unified flow write path: a tenant's flows carry a change in one
// system (source system and entity) to another (target system and entity) through a field
// mapping, and every such write goes through the governance guard (ownership, loop
// ledger, DLP, idempotency). Nothing here talks to a connector directly.
//
// A source system posts a change event, signed with its own secret (tenant.FlowPurpose), to
// POST /api/flows/events/{system}. Each enabled flow whose source matches the event and
// whose filter holds gets one run, with an id derived from the tenant and the event (and
// the flow, when the event starts several), so a redelivered event finds the runs it
// started, whichever flows match it now, and starts nothing (unless its first delivery
// failed before it stored the event: the redelivery then starts the runs not stored).
//
// A run ends in one outcome:
//
//	written      the guard wrote the mapped fields (some may have been dropped by source_wins)
//	skipped      the filter did not hold, no mapped field was in the event, every field was dropped,
//	             (a flow with a match) no counterpart was found and the flow does not create one,
//	             or a newer change of the source record has been written to every field
//	             ("superseded by the change of <time>", see below)
//	rejected     the ownership manifest refused the write
//	held         the write waits on an ownership approval
//	loop_broken  the write was the return leg of a loop and was blocked
//	failed       the target refused the write for good, or the match cannot pick the counterpart
//	             (several records hold the key; a create without a key lost its answer); the failure is a sync error in the
//	             triage queue (syncErrorId), diagnosed and decided like the host ERP's
//	retrying     a transient failure; the run is retried with backoff by the redrive, and
//	             after MaxAttempts it fails like a permanent error; or the run waits on another
//	             run that is creating the same record's counterpart (ClaimWait, MaxClaimWait)
//
// A held run's write is written by the approver's release in governance, under the run's
// idempotency key (its id): unlike a sync-error fix or a finance update it is not sent with
// governance.WriteRequest.ReleaseByRetry, because nothing would send it again (a redelivered
// event finds its run and starts nothing) and no row of its own may be rejected meanwhile:
// its values are its mapping's of the source record as a fresh read gave them. A re-run of a
// failed run (rerun.go) is released the same way: each attempt is a run of its own, so a
// release that only approved it would never be written; a person who no longer wants it
// denies it in governance.
//
// A run is stored as retrying, with its next attempt a lease ahead, before its write is
// attempted: if the function dies mid-run, the redrive takes the run over once the lease
// ends, and the write's idempotency key (the run id) makes the target replay rather than
// apply it twice. No target replays a create, so a run is never attempted by two at once:
// an event's run reached when half its lease has gone (its earlier runs were slow) is left
// to the redrive, and a create's claim keeps its Creating mark until linked (xref.go).
//
// Order: a run writes no field that a newer change of its source record has been written
// to already, by any run of any flow to the same target field. A retry, an event delivered
// after a newer one, and a held write released later would otherwise put back a value the
// source no longer holds. The run hands the guard its change's time (ChangedAt, as the
// source stamped it; two changes stamped alike are ordered by when they arrived, CreatedAt)
// and the guard takes such fields out (Run.Superseded; every field: skipped, never failed).
// The marks it compares ride on the source record's trail, which a run reads anyway, so
// this costs an event no DynamoDB call (Run.order, governance's supersede.go). A sync
// error's re-run reads the source fresh and is not ordered.
//
// Record identity: a flow with a Match finds its target record through the tenant's
// cross-reference (xref.go), the vendor's upsert by an external id, or a lookup, and may
// create it; runs name the record (TargetID) and whether they created, matched or updated
// it. A flow without one writes the target record with the source record's id.
//
// Loops: the runs of two flows that mirror each other (A→B and B→A) carry the same
// governance.Link: the sorted endpoints and the record id (for matched flows the
// cross-reference's anchor, the same from either side), and the values of the field
// pairs both flows map, under names both directions share. The guard therefore sees the
// echo of a write as its return leg although the entities and field names differ per
// system, and although the echo carries only the fields the flow back maps. Loops of more
// flows, or inside one system, are caught by each value's trace (trace.go): the executor
// reads the reported record's trail and hands the guard where each value came from. A
// saved flow that closes a cycle is named in the PUT's answer (cycles.go).
package flow
