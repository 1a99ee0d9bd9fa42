package fault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/bench/loadgen"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// coldTenant posts beside the hot tenant's burst; none of its partitions is throttled.
const coldTenant = "cold"

// deadLettersUnderThrottle is why a diagnosis message of the hot tenant may reach the DLQ
// here and nothing is lost by it. Every delivery of a message fails while the worker's
// reads and writes of its claim are throttled past the SDK's three attempts; the stage's
// visibility timeout is 2 s, so its five receives are spent in about ten seconds of
// throttling, where the deployed queue's (six times the worker's 60 s timeout) would hold
// them for half an hour. Its claim is left queued or diagnosing, and the reconcile
// re-enqueues it; or it was a redundant copy of a claim another delivery diagnosed.
const deadLettersUnderThrottle = "each ran out of its five 2 s receives while the claim's partition was throttled"

// runPartitionThrottle is the hot-partition scenario (issue 29 §7): the stage's DynamoDB
// client goes through a PartitionThrottle that holds the hot tenant's partitions to
// per-partition limits (cfg.PartitionWCU/RCU: DynamoDB's documented 1,000/3,000 scaled to
// the emulator's speed, a tenth at full size and a 25th at short size; the emulator on
// this machine never reaches the documented ones), while the tenant posts the burst and
// a second tenant posts beside it. The
// hot tenant's requests are answered ProvisionedThroughputExceededException or
// ThrottlingException; the SDK retries them with backoff (3 attempts), the ingest answers
// 503 once those are spent and the sender retries, a diagnosis that fails comes back from
// the queue. The fault holds until every claim is diagnosed (the reconcile runs when that
// stalls); then it is lifted, the queue drains, and the checks read the final state:
// the burst's (no errorId lost or doubled, one diagnosis each, no leak; a dead-lettered
// message only of a claim that ended diagnosed, deadLettersUnderThrottle) plus: requests
// were throttled (else the scenario proves nothing), and the other tenant was never
// throttled, every one of its posts answered 202 at the first attempt and every one of
// its claims stored once and diagnosed. The checks read around the proxy (Stage.View):
// through it they would spend the hot tenant's units and fail on its refusals.
func runPartitionThrottle(ctx context.Context, h *Harness, cfg Config) (row Row) {
	indexes := map[string][]string{}
	for _, t := range blueprint.Tables {
		for _, ix := range t.Indexes {
			indexes[t.Name] = append(indexes[t.Name], ix.Name)
		}
	}
	pt, err := StartPartitionThrottle(h.Emu.DynamoDBEndpoint, tenantID, cfg.PartitionRCU, cfg.PartitionWCU, indexes)
	if err != nil {
		row.failf("throttle proxy: %v", err)
		return row
	}
	defer pt.Close()
	// The stage's clients (compose.Load reads it) go through the proxy; the harness's own
	// client (provisioning, and the checks' reads: Stage.View) does not.
	old := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	os.Setenv("AWS_ENDPOINT_URL_DYNAMODB", pt.URL())
	defer os.Setenv("AWS_ENDPOINT_URL_DYNAMODB", old)
	cold := &coldRun{n: cfg.ColdPosts}
	logStart := h.Logs.Len()
	hold := func() string {
		return pt.holdUntilSeen(h, logStart, cfg.PartitionRCU, cfg.PartitionWCU, ingest5xxNeeded(cfg.Posts))
	}
	row = ingestRun{name: "partition-throttle", opt: StageOptions{StuckAfter: 3 * time.Second}, reconcile: true,
		inject: alongside(cold.start, hold), recover: cold.check, endFault: pt.Lift, deadLetters: deadLettersUnderThrottle,
		after: pt.approveUnderThrottle(cfg.PartitionApproves)}.run(ctx, h, cfg)
	row.Lost += cold.lost
	row.Doubled += cold.doubled
	if cold.refused > 0 {
		row.failf("%d posts of tenant %q were not answered 202 at their first attempt", cold.refused, coldTenant)
	}
	if cold.lost+cold.doubled > 0 {
		row.failf("tenant %q: %d claims lost, %d doubled", coldTenant, cold.lost, cold.doubled)
	}
	throttled, passed, by := pt.counts()
	if throttled[tenantID] == 0 {
		row.failf("no request of tenant %q was throttled: the scenario proved nothing", tenantID)
	}
	if throttled["other"] > 0 {
		row.failf("%d requests of other tenants were throttled", throttled["other"])
	}
	if passed["other"] == 0 {
		row.failf("no request of another tenant reached DynamoDB")
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(by)) {
		_, logical, _ := strings.Cut(k, "-")
		parts = append(parts, fmt.Sprintf("%s %d", logical, by[k]))
	}
	row.Note += fmt.Sprintf(" Partition limits %.0f WCU/s and %.0f RCU/s per partition key for tenant %q: %d DynamoDB requests throttled "+
		"(%s), %d passed; tenant %q: %d requests, none throttled. %s", cfg.PartitionWCU, cfg.PartitionRCU, tenantID,
		throttled[tenantID], strings.Join(parts, ", "), passed[tenantID], coldTenant, passed["other"], cold.note)
	return row
}

// coldRun is the other tenant's traffic: it starts when a third of the hot burst is
// answered and is checked after the burst.
type coldRun struct {
	n      int
	key    []byte
	ids    []string
	status []int // the first answer of each post
	start0 time.Time
	note   string
	// refused, lost and doubled are what check counted.
	refused, lost, doubled int
}

// start creates the cold tenant and posts its sync errors at c=2, each once: a post
// answered anything but 202 fails the check (a retry would hide a throttle).
func (c *coldRun) start(ctx context.Context, st *Stage) (string, error) {
	admin := tenant.Admin{Store: st.Deps.Tenants, Keeper: st.Deps.Keeper}
	secrets, err := admin.Create(ctx, coldTenant, nil)
	if err != nil {
		return "", err
	}
	for _, k := range tenant.FeatureFlags {
		if err := admin.Set(ctx, coldTenant, k, "true"); err != nil {
			return "", err
		}
	}
	if c.key, err = webhook.ParseSecret(secrets[tenant.PurposeIngest]); err != nil {
		return "", err
	}
	c.start0 = time.Now()
	c.status = make([]int, c.n)
	c.ids = make([]string, c.n)
	url := st.URL + blueprint.IngestRoute.Path
	res := loadgen.Measure("cold", c.n, 2, func(i int) error {
		errorID := fmt.Sprintf("COLD-%05d", i)
		body, _ := json.Marshal(map[string]any{"tenantId": coldTenant, "errorId": errorID, "recordType": "salesOrder",
			"recordId": faultRecordID(errorID), "errorCode": "INVALID_FIELD_VALUE", "message": faultMessage,
			"occurredAt": time.Now().UTC().Add(-time.Minute).Format(time.RFC3339), "payload": map[string]any{"shipcountry": "Deutschland"}})
		c.ids[i] = syncerror.RowID(syncerror.Record{TenantID: coldTenant, RecordType: "salesOrder", RecordID: faultRecordID(errorID),
			ErrorCode: "INVALID_FIELD_VALUE", Message: faultMessage})
		ans, err := loadgen.PostSigned(ctx, st.Client, url, coldTenant, c.key, webhook.NewMessageID(), body)
		if err != nil {
			return err
		}
		c.status[i] = ans.Status
		return nil
	})
	return fmt.Sprintf("Tenant %q posted %d sync errors at c=2 from a third into the burst (p50 %.1f ms, p99 %.1f ms).",
		coldTenant, c.n, loadgen.MS(res.Quantile(0.5)), loadgen.MS(res.Quantile(0.99))), nil
}

// check runs after the burst: it waits (up to the settle timeout) for every cold claim to
// be diagnosed, then counts the cold claims lost (missing or not diagnosed) and doubled
// (claimed or diagnosed more than once), and the posts not answered 202 at once. The counts
// join the row's; an error is a failed read.
func (c *coldRun) check(ctx context.Context, st *Stage) error {
	if c.status == nil {
		return errors.New("the cold tenant never posted")
	}
	for _, s := range c.status {
		if s != http.StatusAccepted {
			c.refused++
		}
	}
	deadline := time.Now().Add(settleTimeout)
	var claims map[string]syncerror.Claim
	for {
		claims = map[string]syncerror.Claim{}
		for _, id := range c.ids {
			cl, err := st.View.Claims.Get(ctx, coldTenant, id)
			if errors.Is(err, syncerror.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if cl.Diagnosis == syncerror.DiagnosisReady {
				claims[id] = cl
			}
		}
		if len(claims) == len(c.ids) || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	c.lost = len(c.ids) - len(claims)
	for id, cl := range claims {
		claimed := 0
		for _, e := range cl.History {
			if e.Action == "claimed" {
				claimed++
			}
		}
		traces, err := st.View.AIRecords.Traces(ctx, coldTenant, id)
		if err != nil {
			return err
		}
		if claimed != 1 || len(traces) > 1 {
			c.doubled++
		}
	}
	c.note = fmt.Sprintf("Tenant %q: %d posts not answered 202 at their first attempt, %d claims lost, %d doubled; "+
		"its claims were seen all diagnosed %.1f s after its first post (checked once the hot burst was answered).",
		coldTenant, c.refused, c.lost, c.doubled, time.Since(c.start0).Seconds())
	return nil
}
