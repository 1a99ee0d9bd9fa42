package fault

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DynamoDB's documented per-partition limits ("Best practices for designing and using
// partition keys effectively"; "Service, account, and table quotas"): a partition serves
// at most 3,000 read units and 1,000 write units a second, whatever the table's mode.
const (
	PartitionRCU = 3000
	PartitionWCU = 1000
)

// PartitionThrottle is a proxy in front of dynalite that enforces per-partition throughput
// for one tenant, as DynamoDB does for a hot partition key: a token bucket per table (and
// per index) for the tenant's partition, refilled at the configured units a second and
// holding at most one second of them. A request that finds its bucket short is answered
// as DynamoDB answers it (HTTP 400, ProvisionedThroughputExceededException, every fourth
// one ThrottlingException), without reaching the emulator; everything else passes
// unchanged. Every partition key of the service starts with the tenant, so one tenant's
// items and index entries are one partition here; a write to a table with indexes also
// draws on each index's bucket (a global secondary index takes a copy of every write, and
// a throttled index throttles the table's write).
//
// A request's units are estimated from its body: a write costs ceil(body / 1 KB), at least
// 1 (a put's body is its item; an update's body is smaller than the item it rewrites, so
// this throttles less often than DynamoDB would), a read 1.
type PartitionThrottle struct {
	Tenant   string
	RCU, WCU float64
	// Indexes are the index names of each table (by logical name: a physical name is
	// "<stage>-<logical>"), whose buckets a write also draws on.
	Indexes map[string][]string

	target *url.URL
	proxy  *httputil.ReverseProxy
	srv    *httptest.Server
	now    func() time.Time

	mu      sync.Mutex
	lifted  bool // the fault has ended: every request passes
	buckets map[string]*bucket
	// Throttled and Passed count requests by "<tenant>" (the hot one or "other").
	Throttled, Passed map[string]int
	// ByPartition counts the throttled requests by the bucket that refused them.
	ByPartition map[string]int
	n           int
}

type bucket struct {
	tokens float64
	at     time.Time
}

// StartPartitionThrottle starts the proxy in front of endpoint (dynalite's URL).
func StartPartitionThrottle(endpoint, tenant string, rcu, wcu float64, indexes map[string][]string) (*PartitionThrottle, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	p := &PartitionThrottle{Tenant: tenant, RCU: rcu, WCU: wcu, Indexes: indexes, target: u, now: time.Now,
		buckets: map[string]*bucket{}, Throttled: map[string]int{}, Passed: map[string]int{}, ByPartition: map[string]int{}}
	p.proxy = httputil.NewSingleHostReverseProxy(u)
	p.srv = httptest.NewServer(p)
	return p, nil
}

// SetLimits changes the hot tenant's limits from now on (and puts them on again after
// Lift).
func (p *PartitionThrottle) SetLimits(rcu, wcu float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.RCU, p.WCU, p.lifted = rcu, wcu, false
	for _, b := range p.buckets {
		b.tokens = 0
	}
}

// Lift ends the fault: from now on every request passes, until SetLimits.
func (p *PartitionThrottle) Lift() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lifted = true
}

// URL is the proxy's endpoint.
func (p *PartitionThrottle) URL() string { return p.srv.URL }

// Close stops the proxy.
func (p *PartitionThrottle) Close() { p.srv.Close() }

// dynamoRequest is the part of a DynamoDB JSON request the proxy reads.
type dynamoRequest struct {
	TableName                 string
	IndexName                 string
	Item, Key                 map[string]map[string]any
	ExpressionAttributeValues map[string]map[string]any
}

func (p *PartitionThrottle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	var req dynamoRequest
	_ = json.Unmarshal(body, &req)
	who := "other"
	if p.tenantOf(req) {
		who = p.Tenant
	}
	if who == p.Tenant {
		if refusedBy := p.take(op, req, len(body)); refusedBy != "" {
			p.refuse(w, refusedBy)
			return
		}
	}
	p.mu.Lock()
	p.Passed[who]++
	p.mu.Unlock()
	p.proxy.ServeHTTP(w, r)
}

// tenantOf says the request touches the hot tenant's partition: its key's or item's
// tenant_id, or a query's key value (the tenant, or an index key "<tenant>#…").
func (p *PartitionThrottle) tenantOf(req dynamoRequest) bool {
	for _, m := range []map[string]map[string]any{req.Key, req.Item} {
		if v, ok := m["tenant_id"]["S"].(string); ok {
			return v == p.Tenant
		}
	}
	for _, v := range req.ExpressionAttributeValues {
		if s, ok := v["S"].(string); ok && (s == p.Tenant || strings.HasPrefix(s, p.Tenant+"#")) {
			return true
		}
	}
	return false
}

// take draws the request's units from each bucket it uses, or none when one is short; it
// returns the name of the bucket that refused, "" when the request may pass.
func (p *PartitionThrottle) take(op string, req dynamoRequest, size int) string {
	write := op == "PutItem" || op == "UpdateItem" || op == "DeleteItem"
	if !write && op != "GetItem" && op != "Query" {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lifted {
		return ""
	}
	rate, units := p.RCU, 1.0
	names := []string{req.TableName}
	if req.IndexName != "" {
		names = []string{req.TableName + "/" + req.IndexName}
	}
	if write {
		rate, units = p.WCU, math.Max(1, math.Ceil(float64(size)/1024))
		_, logical, _ := strings.Cut(req.TableName, "-")
		for _, ix := range p.Indexes[logical] {
			names = append(names, req.TableName+"/"+ix)
		}
	}
	units = math.Min(units, rate) // a bucket holds one second: a larger request would never pass
	now := p.now()
	var bs []*bucket
	for _, name := range names {
		key := name + "|" + map[bool]string{true: "w", false: "r"}[write]
		b := p.buckets[key]
		if b == nil {
			b = &bucket{tokens: rate, at: now}
			p.buckets[key] = b
		}
		b.tokens = math.Min(rate, b.tokens+now.Sub(b.at).Seconds()*rate)
		b.at = now
		if b.tokens < units {
			p.Throttled[p.Tenant]++
			p.ByPartition[name]++
			return name
		}
		bs = append(bs, b)
	}
	for _, b := range bs {
		b.tokens -= units
	}
	return ""
}

// refuse answers as DynamoDB does when a partition is over its limit.
func (p *PartitionThrottle) refuse(w http.ResponseWriter, partition string) {
	p.mu.Lock()
	p.n++
	kind := "ProvisionedThroughputExceededException"
	msg := "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	if p.n%4 == 0 {
		kind, msg = "ThrottlingException", "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly."
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-RequestId", "fault-throttle")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.dynamodb.v20120810#" + kind, "message": msg + " (" + partition + ")"})
}

// counts returns copies of the counters.
func (p *PartitionThrottle) counts() (throttled, passed, byPartition map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cp := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return cp(p.Throttled), cp(p.Passed), cp(p.ByPartition)
}
