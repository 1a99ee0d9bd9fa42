// Package ratebudget shares one vendor account's request allowance among every function
// that writes to it. Sixty Lambdas each pacing themselves would still exceed a limit that
// is the account's, so the budget lives in DynamoDB, per (tenant, system): a fixed window
// of requests where the vendor counts requests per minute (ShipStation), a concurrency
// lease where it counts requests in flight (NetSuite, Mailchimp, Business Central), and
// for every system a hold the vendor's own answers set (X-Rate-Limit-Remaining and -Reset,
// Sforce-Limit-Info, Retry-After): when the vendor says fewer remain or to wait, the
// budget is drained until it says the allowance comes back.
//
// Taking is one conditional UpdateItem; giving a lease back is another. A write that finds
// no budget is not waited out: connector.Client returns a retryable ErrRateLimited whose
// RetryAfter is the wait, and whoever schedules the write (the flow event's SQS message,
// the sync error's retry schedule, the approver's answer) tries again then.
package ratebudget

import (
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// Limit is one vendor's documented allowance per account. Exactly one of Requests and
// Concurrent is set; a Limit with neither only honours the holds the vendor's answers set.
type Limit struct {
	// Requests per Window, counted in fixed windows as the vendor counts them.
	Requests int
	Window   time.Duration
	// Concurrent is how many requests may be in flight at once. A lease held by a
	// function that died is reclaimed after LeaseTTL.
	Concurrent int
	LeaseTTL   time.Duration
}

// DefaultLeaseTTL bounds how long a lease outlives a process that never gave it back: a
// write is at most two requests of three attempts of connector.DefaultTimeout each, with
// backoff in between.
const DefaultLeaseTTL = 2 * time.Minute

// Vendors are the documented limits, per system.
var Vendors = map[connector.System]Limit{
	// ShipStation v1, "API rate limits"
	// (https://www.shipstation.com/docs/api/requirements/#api-rate-limits): 40 requests a
	// minute per API key and secret; every answer carries X-Rate-Limit-Limit, -Remaining
	// and -Reset (seconds until the window resets). That the window is fixed, not sliding,
	// is read from -Reset counting down to a reset: an assumption the headers support.
	connector.SystemShipping: {Requests: 40, Window: time.Minute},
	// NetSuite, "Web Services and RESTlet Concurrency Governance" and "Concurrency
	// Governance Limits Based on Service Tiers and SuiteCloud Plus Licenses"
	// (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_1525253248.html):
	// the account limit covers web services and RESTlets together, 5 on the standard
	// (shared) service tier plus 10 per SuiteCloud Plus licence ("a standard service tier
	// and one SuiteCloud Plus license ... 15 (5+10)"). 5 is the floor every account has;
	// an account with more is still served, only more slowly.
	connector.SystemHostERP: {Concurrent: 5, LeaseTTL: DefaultLeaseTTL},
	// Business Central, "Operational limits for Business Central online"
	// (https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/administration/operational-limits-online):
	// OData requests, per user: 5 processed at once (more are queued, then refused with
	// 429), 6000 in a five-minute sliding window. The concurrency is the one a burst of
	// writes meets; the rate is left to its 429 and Retry-After.
	connector.SystemERP2: {Concurrent: 5, LeaseTTL: DefaultLeaseTTL},
	// Mailchimp Marketing, "Fundamentals: API limits"
	// (https://mailchimp.com/developer/marketing/docs/fundamentals/): up to 10
	// simultaneous connections per user account; more are refused with 429.
	connector.SystemMarketing: {Concurrent: 10, LeaseTTL: DefaultLeaseTTL},
	// Salesforce's allowance is the org's daily API requests, which differ per edition and
	// licence; every answer says how much is used ("Limit Info Header",
	// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_api_usage.htm:
	// Sforce-Limit-Info: api-usage=used/limit). No local count: the header drains it.
	connector.SystemCRM: {},
}

// LimitFor is the system's limit; an unknown system has only holds.
func LimitFor(system connector.System) Limit { return Vendors[system] }
