package fakesystem

// Salesforce's record locks, as a save that meets one sees them. A save locks the record it
// writes and the records its lookup fields select (Record Locking Cheat Sheet,
// https://resources.docs.salesforce.com/194/latest/en-us/sfdc/pdf/record_locking_cheatsheet.pdf:
// "Opportunity inserts lock the related account record"; and "Every time a record is
// inserted or updated, Salesforce must lock the target records that are selected for each
// lookup field",
// https://developer.salesforce.com/blogs/engineering/2013/04/managing-lookup-skew-to-avoid-record-lock-exceptions),
// and waits at most 10 seconds for a lock another transaction holds (Locking Statements,
// https://developer.salesforce.com/docs/atlas.en-us.apexcode.meta/apexcode/langCon_apex_locking_statements.htm).
// Past that the save fails whole with UNABLE_TO_LOCK_ROW ("If an object in a batch can't be
// locked, the entire batch fails with this error. Errors with this status code contain
// the IDs of the records that couldn't be locked, when available, in the error message.",
// StatusCode,
// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm).
// Assumed, named: the REST status 400 (the pages give none; clients report 400) and the
// message's wording, which is what clients quote; and that the fake answers at once
// rather than after the 10 seconds.

import (
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/syncassist/syncassist/shared/connector"
)

// LockNextWrites makes the next n saves that need the lock of the CRM record entity/id
// (writing it, by id or by an external id, or creating or writing a record that looks it
// up: its id among the fields' values) fail as if another transaction held that lock: 400
// with Salesforce's error array, code UNABLE_TO_LOCK_ROW, nothing applied and no write
// logged. Reads are not affected (a locked record can still be read). It panics on a fake
// of another system, a mistake in the test.
func (s *Server) LockNextWrites(entity, id string, n int) {
	if s.system != connector.SystemCRM {
		panic(fmt.Sprintf("fakesystem: LockNextWrites on %s: only Salesforce answers UNABLE_TO_LOCK_ROW", s.system))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.locks == nil {
		s.locks = map[recordKey]int{}
	}
	s.locks[recordKey{entity, s.dialect.key(id)}] += n
}

// lockRefusal answers a save of sobject/id (id "" for a create) with fields when it needs a
// lock LockNextWrites holds, and uses up one of that lock's refusals; ok false when the
// save may go ahead. s.mu is held.
func (f salesforceFake) lockRefusal(s *Server, sobject, id string, fields map[string]any) (rep reply, ok bool) {
	take := func(k recordKey) bool {
		if s.locks[k] <= 0 {
			return false
		}
		s.locks[k]--
		return true
	}
	locked := ""
	if id != "" && take(recordKey{sobject, id}) {
		locked = id
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		v, isText := fields[name].(string)
		if locked != "" || !isText || v == "" {
			continue
		}
		for k := range s.locks {
			if k.id == v && take(k) {
				locked = v
				break
			}
		}
	}
	if locked == "" {
		return reply{}, false
	}
	return f.errorReply(http.StatusBadRequest, connector.SalesforceLockCode,
		"unable to obtain exclusive access to this record or 1 records: "+locked), true
}
