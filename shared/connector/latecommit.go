package connector

import "time"

// LateCommit is how long after a request was sent the vendor may still apply it: its own
// timeout for a request it is processing. A write whose answer was lost may land until
// then, so a record looked up and not found within it may yet appear (a create sent again
// would make a second one). That a request past the timeout is failed, never committed
// later, is an assumption: the pages below give the timeouts, not what becomes of the
// work of a request that outlived one; the flows and the admin's settle rely on it (and
// the README names it).
//   - NetSuite: a 15-minute request timeout (VENDOR-APIS.md, NetSuite concurrency).
//   - Business Central: an 8-minute operation timeout, a 504 at 10 minutes (VENDOR-APIS.md,
//     Business Central throttling): 10.
//   - Salesforce: "The timeout limit for REST and SOAP API calls is 10 minutes"
//     (developer.salesforce.com, API Request Limits and Allocations, API Timeout Limits).
//   - Mailchimp, ShipStation: no figure in their documentation; an assumption, the longest
//     of the others (15 minutes). Their flows upsert by a fixed key and rarely look up.
func LateCommit(s System) time.Duration {
	switch s {
	case SystemERP2, SystemCRM:
		return 10 * time.Minute
	default:
		return 15 * time.Minute
	}
}
