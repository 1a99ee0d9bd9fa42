// Package decisions is what people decide on a row of the queue: approve (the guarded
// write-back, its lease and typing of the fix), reject and escalate, resolve, the retry
// route, revert, bulk decisions by ids or by filter, the groups of like fixes, and triage
// (assign, tag, note). Each answers with the row as the queue shows it (queue.Service,
// which Service embeds) and consults the tenant's approval policy and knowledge (the
// policy room, which the queue's Service embeds).
//
// It may import the core (shared/syncerror), policy and queue only: no other room of the
// feature.
package decisions
