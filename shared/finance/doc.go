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
// An applying row whose lease has expired may be taken over by another approve, which
// gets a new token; the holder it displaced can then neither complete nor revert.
//
// # Approve
//
// Approve is three single-item conditional writes around one guarded ERP update:
//
//  1. beginAccept takes the lease. Of any number of concurrent approves one wins; the
//     others answer 409 (lease_held, or not_pending once the winner has finished).
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
// (codes as the sync-error write-back uses them); 502 erp_update_failed and
// erp_returned_nothing; 503 connector_not_configured, connector_unavailable and
// temporarily_unavailable.
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
