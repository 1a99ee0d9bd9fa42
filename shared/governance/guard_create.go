package governance

// Creates and upserts pass the guard like updates: the ownership check per field, the
// loop check, the DLP scan, the idempotency key and the ledger. What differs is the
// record: a create has no id until the target answers, so the audit names it
// "<target>/<entity>/+new" (an upsert "<target>/<entity>/<key>=<value>"), the ledger
// keeps the id the target gave it, and a record that does not exist yet cannot be the
// return leg of a loop unless the write carries a Link (flows do when a flow back exists),
// whose subject is independent of the record id.

// resourceOf names the written record in audit and governance records.
func resourceOf(req WriteRequest) string {
	prefix := string(req.Target) + "/" + req.Entity + "/"
	switch {
	case req.Create:
		return prefix + "+new"
	case req.UpsertKey != "":
		return prefix + req.UpsertKey + "=" + req.RecordID
	}
	return prefix + req.RecordID
}

// newRecord says the write makes a record with no ledger history of its own: a create
// without a link.
func (op *writeOp) newRecord() bool { return op.req.Create && op.req.Link == nil }
