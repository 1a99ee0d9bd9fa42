// Package finance owns finance approvals: the approval row the host ERP creates (signed
// like the sync-error webhook), its states, the approver's approve and reject, the durable
// two-stage lease around the ERP update, the sweep of expired leases the reconcile runs,
// and the HTTP handlers of /api/finance-ops/approvals.
//
// # States
//
//	pending  --approve: beginAccept-->   applying  (fresh lease token, lease_expires_at)
//	applying --completeAccept-->         accepted  (only while the token still holds)
//	applying --any failure / sweep-->    pending   (only while the token still holds)
//	pending  --reject-->                 rejected  (one conditional write, no ERP call)
//
// An applying row whose lease has expired may be taken over by another approve
// (Store.TakeOver, apart from BeginAccept so the approve knows it displaced a holder),
// which gets a new token; the holder it displaced can then neither complete nor revert.
// That holder may have updated the ERP before it stopped, so before taking the lease the
// approve looks for the update (write ledger, then the ERP record): found, it completes
// the holder's lease in the holder's name without calling the ERP; not readable, it
// changes nothing and answers 503 outcome_unverified (the row stays applying under the
// holder's lease for the sweep); not found, it takes the lease over and writes.
//
// The sweep never settles an expired lease by a guess either, but it does not wait for
// good: when the evidence cannot be read at all (no host ERP connector, or one that may
// not read the record) or has not been readable for UnverifiedAfter (a day), it returns
// the row to pending with a LastError saying the outcome is unverified and the ERP record
// must be checked before approving again, audited finance.outcome_unverified and counted
// in the OutcomesUnverified metric. A person then approves or rejects it.
//
// # Approve
//
// Approve is three single-item conditional writes around one guarded ERP update:
//
//  1. beginAccept takes the lease. Of any number of concurrent approves one wins; the
//     others answer 409 (lease_held, or not_pending once the winner has finished);
//     lease_held says when the lease ends, with Retry-After, since a winner that lost
//     the ERP's answer keeps the row until then.
//  2. The ERP update goes through the governance guard (ERPUpdater; GuardUpdater in
//     production) with IdempotencyKey(id) — a pure function of the approval id — so an
//     approve retried after a crash, or taken over after a lease expired, is replayed by
//     the ERP and never applied twice.
//  3. completeAccept moves applying → accepted if the token still holds.
//
// Every failure after step 1 and before the ERP confirmed the update — the row has no
// erp_id, the guard or connector fails, the connector returns nothing (see Confirmed) —
// reverts the row to pending conditionally on the same token and writes the audit record
// finance.approve with result failure and the cause (Cause). A revert refused because the
// token no longer holds is correct, not an error: the row belongs to whoever holds it now.
//
// A failure that may have left the update applied (connector.MayHaveApplied: an answer
// lost to a timeout or a reset, a 5xx, also when a later try was refused; or the deadline)
// is not such a failure: the approve reads the ERP record back. Holding the approval's
// fields, the approval happened and completes; not holding them after the ERP's own final
// answer, the row reverts; otherwise it stays applying (502 erp_outcome_unknown; it cannot
// be rejected meanwhile) and the sweep settles it from the ERP record once the lease has
// expired.
//
// # Held updates
//
// Governance may hold the update for an ownership approval (409
// ownership_approval_required); the row reverts to pending. The update is sent with
// governance.WriteRequest.ReleaseByRetry, so releasing the hold in governance only
// approves it and writes nothing: the next approve of the row writes it (the guard finds
// the approved hold under the same idempotency key). The finance row stays the one place
// that decides whether the ERP is written: a row rejected after the release is never
// written, and an approve after it writes once. A release that wrote at once would have
// written an approval that was pending, rejectable and invisible to the sweep.
//
// Once the ERP confirmed the update, the approval happened: the row is marked applied,
// completion is retried, the audit says success, and the row only ends accepted (by this
// approve, the next one or the sweep); it is never reverted.
//
// Status codes, within SPEC.md's set for approve plus 202: 200 accepted; 202 the ERP was
// updated and completing is left to the sweep; 400 invalid_id or missing_erp_id; 403
// four_eyes when the approver is the requester (checked before the lease, by reading the
// row, and failing closed); 404
// not_found; 409 not_pending, lease_held, erp_applied, state_changed, and the governance
// refusals ownership_rejected, ownership_approval_required, loop_detected and dlp_blocked
// (codes as the sync-error write-back uses them); 502 erp_update_failed,
// erp_returned_nothing and erp_outcome_unknown; 503 connector_not_configured, connector_unavailable,
// outcome_unverified and temporarily_unavailable.
//
// The ERP call runs with at most half the lease and the request's deadline less
// ERPReserve, and the completion, revert and audit writes are detached from the caller's
// cancellation, so a holder that is still alive has finished (or given up and reverted)
// long before anyone may take its lease over.
//
// # Dependencies
//
// Storage is the Store interface (dynamostore.Finance in production, financetest.Store in
// tests, both held to financetest.RunStoreContract); the ERP write is ERPUpdater; audit
// is Auditor. Every key starts with the tenant, and handlers take the tenant from the
// caller's identity (or the host's signature), so another tenant's row is not found.
package finance
