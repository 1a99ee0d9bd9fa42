package fault

// The vendors of the rate-budget scenario: per vendor, the record its 200 writes update
// and the limit the row holds it to. Entities and fields are ones the default manifest
// lets the vendor write as its own source (an entity it owns, or one the manifest leaves
// open), seeded so each write is an update.

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/ratebudget"
)

// budgetVendor is one row of the scenario's table.
type budgetVendor struct {
	name          string
	sys           connector.System
	entity, field string
	id            func(i int) string
	seed          func(id string) map[string]any
	// concurrent is the vendor's limit on requests in flight (0: none counted here).
	concurrent int
	// setup readies the fake (and may put a gate of its own in front of it).
	setup func(fake *fakesystem.Server, clock *fakeClock, store ratebudget.Store) (http.Handler, *sforceDay)
}

// delayed holds each answer 5 ms (real time), so that writes overlap and a concurrency
// limit is met.
func delayed(fake *fakesystem.Server, _ *fakeClock, _ ratebudget.Store) (http.Handler, *sforceDay) {
	fake.Delay(5 * time.Millisecond)
	return fake.Handler(), nil
}

// budgetVendors are the five vendors, each with the limit limits.go gives it.
var budgetVendors = []budgetVendor{
	{name: "ShipStation", sys: connector.SystemShipping, entity: "orders", field: "customerNotes",
		id: func(i int) string { return strconv.Itoa(9000 + i) },
		seed: func(id string) map[string]any {
			return map[string]any{"orderNumber": "SO-" + id, "orderKey": "K-" + id}
		},
		setup: func(fake *fakesystem.Server, _ *fakeClock, _ ratebudget.Store) (http.Handler, *sforceDay) {
			fake.RateLimit(40, time.Minute)
			return fake.Handler(), nil
		}},
	{name: "NetSuite", sys: connector.SystemHostERP, entity: "customer", field: "comments", concurrent: 5,
		id:   func(i int) string { return strconv.Itoa(9000 + i) },
		seed: func(id string) map[string]any { return map[string]any{"companyName": "C" + id} }, setup: delayed},
	// Business Central's customers are keyed by a GUID ("id": "5d115c9c-…", as its API
	// reference shows); the manifest's "customer" is the host ERP's, "customers" is open.
	{name: "Business Central", sys: connector.SystemERP2, entity: "customers", field: "displayName", concurrent: 5,
		id:   func(i int) string { return fmt.Sprintf("5d115c9c-44e3-ea11-bb43-%012d", 9000+i) },
		seed: func(id string) map[string]any { return map[string]any{"displayName": "C" + id, "balanceDue": 0} }, setup: delayed},
	// Mailchimp's members are addressed by the subscriber hash of their email; the fake
	// takes the email as the id and hashes it, as the connector does.
	{name: "Mailchimp", sys: connector.SystemMarketing, entity: "a1b2c3d4e5", field: "language", concurrent: 10,
		id: func(i int) string { return fmt.Sprintf("m%d@example.com", 9000+i) },
		seed: func(id string) map[string]any {
			return map[string]any{"email_address": id, "status": "subscribed", "language": "de"}
		}, setup: delayed},
	// Salesforce's accounts are the CRM's own (the manifest's "account", matched without
	// regard to case).
	{name: "Salesforce", sys: connector.SystemCRM, entity: "Account", field: "Description",
		id:   func(i int) string { return fmt.Sprintf("001000000000%03dAAA", i) },
		seed: func(id string) map[string]any { return map[string]any{"Name": "C" + id} },
		setup: func(fake *fakesystem.Server, clock *fakeClock, store ratebudget.Store) (http.Handler, *sforceDay) {
			day := &sforceDay{next: fake.Handler(), clock: clock, store: store, limit: sforceAllowance, length: sforceDayLength,
				start: clock.Now(), spent: map[time.Time]bool{}}
			return day, day
		}},
}

// The scenario's Salesforce org: a scaled daily allowance. Salesforce counts an org's API
// requests over a rolling 24 hours ("API Request Limits and Allocations",
// https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-platform-api.html:
// "When a call exceeds a request limit, an error is returned"; the REST API's error for
// it is 403 REQUEST_LIMIT_EXCEEDED) and says the count on every answer
// (Sforce-Limit-Info: api-usage=used/limit,
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_api_usage.htm).
// Scaled: 300 requests a "day" of 10 minutes of fake time, in fixed windows (the rolling
// window and the figures are the scenario's, not Salesforce's). 300 because each write is
// two requests (the read and the PATCH): with no local count all 200 writes of a burst are
// sent at once, and an allowance under their 200 reads would be spent on reads alone.
// That a refused request is not counted is an assumption.
const (
	sforceAllowance = 300
	sforceDayLength = 10 * time.Minute
)

// sforceDay is the gate in front of the fake Salesforce that keeps the scaled allowance:
// it answers Sforce-Limit-Info on every request and 403 REQUEST_LIMIT_EXCEEDED once the
// day's allowance is spent. It also asks the budget's store, at each request, whether the
// budget holds the account: a request that arrives while it does, or while the allowance
// is spent, at a later instant of fake time than the answer that spent it, was sent while
// the budget said spent (or should have). (The writes of one instant are all taken before any answer: those a spending
// answer overtakes are the burst's, refused by Salesforce and deferred.)
type sforceDay struct {
	next   http.Handler
	clock  *fakeClock
	store  ratebudget.Store
	limit  int
	length time.Duration
	start  time.Time

	mu       sync.Mutex
	used     int
	days     int                // days whose allowance was spent
	refused  int                // 403 REQUEST_LIMIT_EXCEEDED answers
	spent    map[time.Time]bool // instants at which an answer said the allowance is spent
	heldSent []time.Time        // arrivals while the budget held the account
}

func (d *sforceDay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := d.clock.Now()
	held := d.budgetHeld(r.Context(), now)
	d.mu.Lock()
	for !now.Before(d.start.Add(d.length)) {
		d.start, d.used = d.start.Add(d.length), 0
	}
	over := d.used >= d.limit
	if held || over {
		d.heldSent = append(d.heldSent, now)
	}
	if !over {
		d.used++
		if d.used == d.limit { // this answer spends the allowance
			d.spent[now] = true
			d.days++
		}
	}
	w.Header().Set("Sforce-Limit-Info", fmt.Sprintf("api-usage=%d/%d", d.used, d.limit))
	if over {
		d.refused++
	}
	d.mu.Unlock()
	if over {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`[{"message":"TotalRequests Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}]`))
		return
	}
	d.next.ServeHTTP(w, r)
}

// budgetHeld reads the budget's hold item for the account: a count of nothing, refused
// only while a hold is in force. The item's name is the budget's (budget.go).
func (d *sforceDay) budgetHeld(ctx context.Context, now time.Time) bool {
	k := ratebudget.Key{Tenant: budgetTenant, Item: "ratebudget#" + string(connector.SystemCRM) + "#hold"}
	_, ok, err := d.store.Count(ctx, k, now, 0, 0, now.Add(time.Hour))
	return err == nil && !ok
}

// sentWhileSpent is how many requests arrived while the budget held the account or the
// allowance was spent, at an instant other than one whose answers spent it.
func (d *sforceDay) sentWhileSpent() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, at := range d.heldSent {
		if !d.spent[at] {
			n++
		}
	}
	return n
}
