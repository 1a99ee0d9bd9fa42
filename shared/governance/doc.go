// Package governance owns the guarded write: the one function every connector write of
// the service goes through (Guard.Write), the source-of-truth (ownership) manifest it
// enforces, the loop detector and write ledger behind it, the records it leaves for
// operators (ownership rejections, loop detections, pending ownership approvals), the
// alerts it raises, and the approver-facing HTTP handlers that read those records and
// decide the approvals.
//
// # The guarded write
//
// Guard.Write runs, in this order and for every write:
//
//  0. for a flow write that says when its source held its values (Link.Changed), the
//     fields a newer change of its source record has been written to already are taken
//     out (ErrSuperseded when that is all of them; supersede.go);
//  1. ownership check against the tenant's manifest (default manifest merged with the
//     tenant's overrides);
//  2. loop checks: against the ledger of recent writes to the same record, then, for a
//     flow write, each value's hop chain (hops.go);
//  3. DLP: a field holding a mask or placeholder the DLP writes (dlp.MaskedValue:
//     [REDACTED:…], *****6789, a PCI mask, [EMAIL_1]) refuses the whole write
//     (ErrMaskedValue, recorded as governance.masked_value and alerted: guard_masked.go);
//     then the scan of the fields with the connector-write policy, failing closed;
//  4. the connector write itself (or, under require_approval, holding it instead),
//     preceded for a flow write by the flapping cap (flapping.go);
//  5. one ledger entry: origin tag (the Source system) and the SHA-256 of the canonical
//     JSON of the fields written; for a flow write also its values' trail entries and its
//     sent mark on the source record's trail;
//  6. the audit record connector.write (result success, failure or denied; field names and
//     counts, never values).
//
// connector.Client.Write is called from nowhere else: architecture_test.go type-checks the
// whole repository and fails if any other package calls it, or calls anything that takes a
// connector.WriteRequest.
//
// # Ownership
//
// Each manifest entry names an entity, optionally one field of it, the owning system and a
// policy. For each field of a write, the field-level entry wins over the entity-level one;
// a field is in conflict when an owner is declared and the write's Source is not that
// owner. The policies, from the strictest:
//
//   - reject_with_alert: the whole write is refused (ErrOwnershipRejected), an
//     OwnershipRejection is recorded per declared owner and an alert is raised;
//   - require_approval: the whole write is held as a PendingApproval (reason "ownership")
//     and ErrPendingApproval returned; an approver releases or denies it;
//   - source_wins: the conflicting fields are dropped (the owner's value stands), recorded
//     as an OwnershipRejection with policy source_wins, and the rest is written.
//
// When the conflicts of one write carry different policies the strictest decides for the
// whole write: reject, then approval, then source_wins. A held write is held whole (its
// source_wins fields are not dropped), because the approver decides on the write as it was
// asked for.
//
// The default manifest (DefaultManifest):
//
//	entity          field           owner      policy
//	salesOrder                      hosterp    reject_with_alert
//	salesOrder      trackingNumber  shipping   source_wins
//	invoice                         hosterp    reject_with_alert
//	vendorBill                      hosterp    require_approval
//	journalEntry                    hosterp    reject_with_alert
//	item                            hosterp    source_wins
//	customer                        hosterp    reject_with_alert
//	customer        email           crm        source_wins
//	customer        phone           crm        source_wins
//	contact                         crm        reject_with_alert
//	contact         marketingOptIn  marketing  require_approval
//	account                         crm        reject_with_alert
//	opportunity                     crm        source_wins
//	campaign                        marketing  reject_with_alert
//	subscription                    marketing  source_wins
//	shipment                        shipping   reject_with_alert
//	label                           shipping   reject_with_alert
//	trackingNumber                  shipping   reject_with_alert
//
// Why these: financial documents (orders, invoices, journal entries) have exactly one
// author, so a foreign write is a bug worth an alert; vendor bills may legitimately arrive
// from a second ERP but move money, so a person looks first; item master data and CRM
// pipeline data are routinely echoed back by other systems, where quietly keeping the
// owner's value is the right answer; contact details of a customer live in the CRM and a
// tracking number in the shipping platform even when the record around them lives in the
// ERP; a consent flag (marketingOptIn) changed by anyone but the marketing platform needs
// an approver. Entities the manifest does not name have no owner and are not checked.
//
// An operator-approved fix written back to the host ERP is written with Source ==
// Target == hosterp: the ERP's own authority, which is what the operator exercised.
//
// # Loops
//
// A write Source=A→Target=B of (entity, recordId) is reciprocal when the ledger holds,
// within the loop window (default 5 minutes), a write B→A of the same record that either
// had the same payload hash, or wrote exactly the same set of field names (ping-pong of
// the same fields with changing values, such as two systems normalising a phone number
// differently). A different payload over a different set of fields is allowed: systems
// that sync a record both ways legitimately exchange different fields of it (the CRM
// writes the email to the ERP, the ERP writes the credit limit to the CRM). Partial
// overlap of field sets is therefore not a loop. A write whose Source equals its Target
// (an operator's fix to the host ERP) is never part of a loop. Blocked writes leave no
// ledger entry, so an A→B→A→B chain is cut at its first reciprocal write and the next A→B
// is judged afresh.
//
// The reciprocal check sees only a direct return leg. A flow write also carries, per
// field, the Trace of its value (origin and every field a flow wrote it to since); a field
// whose trace already visited the write's target endpoint is taken out of the write and
// recorded as a loop detection naming the chain, which catches a loop through any number
// of systems, a value coming back in another field, and two flows inside one system. The
// flapping cap counts flow writes per record field in fixed windows and breaks the field
// over the limit, for loops that rewrite the value on every pass. See hops.go and
// flapping.go.
//
// The loop check reads the ledger and the write appends to it without a transaction
// (the local emulator has none): two opposite writes racing within milliseconds can both
// pass. Feedback loops are sequential by nature (each write triggers the next), so the
// detector still cuts them at the second hop.
//
// # Approvals
//
// Approving runs one conditional update pending → releasing, so of concurrent approvals
// exactly one releases the write; the write goes through the guard with the ownership
// check satisfied by that decision (an unexported entry point), so loop check, DLP, ledger
// and audit still run; then releasing → approved. If the target refuses the write the
// approval goes back to pending (and the failure is audited), so it can be approved again
// or denied. If the write's request went out and its answer was lost
// (connector.MayHaveApplied and WriteSent) the write may have landed: the approval becomes
// unsettled, which cannot be denied until an approver who checked the record settles it
// by word (written: approved and recorded; not written: pending again), or an approve
// sends an update again under its idempotency key (http_release.go, http_settle.go). A
// create is never sent again. A release that died midway (a Lambda crash) leaves
// releasing behind; another approve may take it over after Service.ReleaseTimeout, as a
// settling release (its failure leaves it unsettled; a create's is made unsettled
// without sending), and since the held write keeps its idempotency key the target system
// replays an update rather than applies it twice.
//
// A write held with WriteRequest.ReleaseByRetry is approved without being written: its
// caller (a finance approve, a sync-error approve, revert or retry) decides again whether
// it is still wanted, and writes it then through the approved hold. A flow run's write has
// no such caller and is written by its release.
//
// # HTTP
//
// Handlers sit behind validateGuestContext and requireApproverRole (identity middleware);
// they read the tenant from the request's identity, so no request can see or decide
// another tenant's records. Calls from an embedded session carry X-Embedded-Context-Id,
// which the identity middleware resolves into the identity before the handler runs; the
// handlers treat such a caller like any other.
package governance
