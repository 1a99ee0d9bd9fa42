// Package intake is how a sync error becomes a claim: the signed webhook (Ingest), the
// reports of the service's own failed syncs (Reporter), and the 30-minute reconcile that
// polls the host ERP, re-enqueues stuck claims and finishes expired approve leases. Every
// way in goes through one claim path: the at-rest mask, the fold into the signature's open
// row, then the diagnosis enqueue.
//
// It may import the core (shared/syncerror) and automation (the reconcile puts old
// automation records in order through automation.OrderAutomation) only: no other room of
// the feature.
package intake
