package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/flow"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// timer measures invocations made one at a time: wall time, this process's CPU time
// (getrusage; the emulators are other processes) and the AWS calls the meter saw.
type timer struct {
	m         *Meter
	n         float64
	wall, cpu time.Duration
	calls     int
	function  string
	memoryMB  int
}

func newTimer(m *Meter, function string) *timer {
	f, err := blueprint.FunctionNamed(function)
	if err != nil {
		panic(err)
	}
	return &timer{m: m, function: function, memoryMB: f.MemoryMB}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// time runs one invocation and adds it to the figures.
func (t *timer) time(fn func() error) error {
	c0, w0, k0 := cpuNow(), time.Now(), t.m.Calls()
	err := fn()
	t.wall += time.Since(w0)
	t.cpu += cpuNow() - c0
	t.calls += t.m.Calls() - k0
	t.n++
	return err
}

// invocations are the figures, count being the invocations the path bills for them.
func (t *timer) invocations(count float64) Invocations {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / t.n }
	return Invocations{Function: t.function, MemoryMB: t.memoryMB, Count: count, WallMS: ms(t.wall), CPUMS: ms(t.cpu),
		AWSCalls: float64(t.calls) / t.n}
}

// apiEvent is what API Gateway (HTTP API, payload 2.0) hands a function.
func apiEvent(method, path string, headers http.Header, body string) events.APIGatewayV2HTTPRequest {
	ev := events.APIGatewayV2HTTPRequest{RawPath: path, Body: body, Headers: map[string]string{"content-type": "application/json"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
			Method: method, Path: path}}}
	for k := range headers {
		ev.Headers[strings.ToLower(k)] = headers.Get(k)
	}
	return ev
}

// invoke calls an HTTP function's entry point and wants status.
func (r *run) invoke(t *timer, fn platform.HTTPHandler, ev events.APIGatewayV2HTTPRequest, status int) error {
	return t.time(func() error {
		resp, err := fn(r.ctx, ev)
		if err != nil {
			return err
		}
		if resp.StatusCode != status {
			return fmt.Errorf("%s %s: status %d, want %d: %s", ev.RequestContext.HTTP.Method, ev.RawPath, resp.StatusCode, status, resp.Body)
		}
		r.apiRequests++
		return nil
	})
}

// costMessage is a sync error the rules diagnoser fixes (a country name where the ERP
// wants an ISO code), on a record of its own, so each is its own claim.
const costMessage = "Invalid value for field shipcountry: Deutschland is not a valid ISO 3166 country code"

// syncErrors drives n sync errors through ingest, diagnosis (the rules provider, batches of
// the blueprint's size) and approve with write-back to the fake host ERP.
func (r *run) syncErrors(n int) (Path, error) {
	pa := Path{Name: "sync error: ingest → diagnosis (rules) → approve and write-back", Unit: "sync error", N: float64(n)}
	ingest, err := r.deps.HTTPLambda(blueprint.FuncIngest)
	if err != nil {
		return pa, err
	}
	approve, err := r.deps.HTTPLambda(blueprint.FuncProposalApprove)
	if err != nil {
		return pa, err
	}
	r.reset()
	ti := newTimer(r.meter, blueprint.FuncIngest)
	ids := make([]string, n)
	for i := range n {
		errorID := fmt.Sprintf("COST-%05d", i)
		recordID := "SO-" + errorID
		r.erp.Seed("salesOrder", recordID, map[string]any{"shipcountry": "Deutschland", "shipzip": "10115"})
		payload := map[string]any{"shipcountry": "Deutschland", "shipzip": "10115", "total": 129.5, "email": fmt.Sprintf("buyer%d@example.com", i)}
		if err := r.postSyncError(ti, ingest, errorID, recordID, payload); err != nil {
			return pa, err
		}
		ids[i] = syncerror.RowID(syncerror.Record{TenantID: costTenant, RecordType: "salesOrder", RecordID: recordID,
			ErrorCode: "INVALID_FIELD_VALUE", Message: costMessage})
	}
	if err := r.stage(&pa, "ingest", ids); err != nil {
		return pa, err
	}
	td, batches, err := r.diagnose(n)
	if err != nil {
		return pa, err
	}
	if err := r.stage(&pa, "diagnose", ids); err != nil {
		return pa, err
	}
	ta := newTimer(r.meter, blueprint.FuncProposalApprove)
	for _, id := range ids {
		h := http.Header{"Authorization": {"Bearer approver@" + costTenant}}
		path := "/api/sync-error-assist/proposals/" + id + "/approve"
		if err := r.invoke(ta, approve, apiEvent(http.MethodPost, path, h, "{}"), http.StatusOK); err != nil {
			return pa, err
		}
	}
	if got := len(r.erp.Writes()); got != n {
		return pa, fmt.Errorf("the fake ERP applied %d writes for %d approves", got, n)
	}
	if err := r.stage(&pa, "approve", ids); err != nil {
		return pa, err
	}
	pa.Lambdas = []Invocations{ti.invocations(float64(n)), td.invocations(float64(batches)), ta.invocations(float64(n))}
	r.finish(&pa)
	// The event source mapping receives each batch and deletes it in one DeleteMessageBatch.
	pa.SQSRequests = 2 * float64(batches)
	return pa, nil
}

// postSyncError posts the cost error errorID on recordID to the ingest function as the
// host ERP does: signed under the id its script derives (syncerror.HostMessageID).
func (r *run) postSyncError(t *timer, ingest platform.HTTPHandler, errorID, recordID string, payload map[string]any) error {
	body, _ := json.Marshal(map[string]any{"tenantId": costTenant, "errorId": errorID, "recordType": "salesOrder",
		"recordId": recordID, "errorCode": "INVALID_FIELD_VALUE", "message": costMessage,
		"occurredAt": time.Now().UTC().Add(-time.Minute).Format(time.RFC3339), "payload": payload})
	h := http.Header{}
	webhook.Sign(r.keys[tenant.PurposeIngest], syncerror.HostMessageID(costTenant, errorID), time.Now(), body).Set(h)
	h.Set(intake.HeaderTenantID, costTenant)
	return r.invoke(t, ingest, apiEvent(http.MethodPost, blueprint.IngestRoute.Path, h, string(body)), http.StatusAccepted)
}

// stage closes a stage of the sync error path: its usage, then the shape of the row id
// (read after the take, so the meter does not count it).
func (r *run) stage(pa *Path, name string, ids []string) error {
	st := Stage{Name: name, Usage: r.meter.Take()}
	var err error
	if len(ids) > 0 {
		st.Row, err = r.claimRowShape(r.ctx, costTenant, ids[0])
	}
	pa.Stages = append(pa.Stages, st)
	return err
}

// diagnose drains the diagnosis queue through the worker in batches of the blueprint's
// size, as the event source mapping hands them, with a client the meter does not see (the
// mapping's receives and deletes are AWS's, billed as SQS requests: Path.SQSRequests).
func (r *run) diagnose(n int) (*timer, int, error) {
	f, _ := blueprint.FunctionNamed(blueprint.FuncDiagnose)
	t := newTimer(r.meter, blueprint.FuncDiagnose)
	worker := r.deps.Worker()
	q := r.prov.Queues[blueprint.Diagnosis.Name]
	var failed int
	p := &sqsqueue.Poller{Client: sqs.NewFromConfig(r.rawAWS), QueueURL: q.URL, QueueARN: q.ARN, BatchSize: int32(f.BatchSize),
		Handler: func(ctx context.Context, ev events.SQSEvent) (resp events.SQSEventResponse, err error) {
			_ = t.time(func() error { resp, err = worker.HandleBatch(ctx, ev); return err })
			failed += len(resp.BatchItemFailures)
			return resp, err
		}}
	done, batches := 0, 0
	deadline := time.Now().Add(2 * time.Minute)
	for done < n && time.Now().Before(deadline) {
		got, err := p.PollOnce(r.ctx)
		if err != nil {
			return nil, 0, err
		}
		if got > 0 {
			done += got
			batches++
		}
	}
	if done < n || failed > 0 {
		return nil, 0, fmt.Errorf("diagnosis: %d of %d messages handled, %d failed", done, n, failed)
	}
	return t, batches, nil
}

// flowEvents drives n change events of the host ERP through the flow-event function, each
// one run and one guarded write of the CRM Account's phone.
func (r *run) flowEvents(n int) (Path, error) {
	pa := Path{Name: "flow event → guarded write (host ERP customer → CRM Account)", Unit: "flow event", N: float64(n)}
	fn, err := r.deps.HTTPLambda(blueprint.FuncFlowEvent)
	if err != nil {
		return pa, err
	}
	if err := r.flowSetup(n); err != nil {
		return pa, err
	}
	r.reset()
	t := newTimer(r.meter, blueprint.FuncFlowEvent)
	path := "/api/flows/events/hosterp"
	for i := range n {
		body, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("ev-%d", i), "entity": "customer",
			"recordId": fmt.Sprintf("C-%d", i), "changedAt": time.Now().UTC().Format(time.RFC3339),
			"fields": map[string]any{"phone": fmt.Sprintf("+49 40 %d", 1000+i)}})
		h := http.Header{}
		// The id a relay following docs/flow-sources.md derives (flow.EventMessageID).
		webhook.Sign(r.keys[tenant.FlowPurpose("hosterp")], flow.EventMessageID("hosterp", fmt.Sprintf("ev-%d", i)), time.Now(), body).Set(h)
		h.Set(intake.HeaderTenantID, costTenant)
		if err := r.invoke(t, fn, apiEvent(http.MethodPost, path, h, string(body)), http.StatusAccepted); err != nil {
			return pa, err
		}
	}
	if got := len(r.crm.Writes()); got != n {
		return pa, fmt.Errorf("the fake CRM applied %d writes for %d events", got, n)
	}
	pa.Lambdas = []Invocations{t.invocations(float64(n))}
	r.finish(&pa)
	return pa, nil
}

// schedules are the scheduled functions a tenant costs every day: each run once here, on
// a stage holding one tenant, then counted as many times a day as its schedule runs it.
func (r *run) schedules() (Path, error) {
	pa := Path{Name: "scheduled backstops, one tenant", Unit: "tenant-day", N: 1, PerUnits: 30}
	type sched struct {
		name  string
		every time.Duration
		run   func() error
	}
	d := r.deps
	list := []sched{
		{blueprint.FuncReconcile, blueprint.ReconcileInterval, func() error { _, err := d.ReconcileLambda(r.ctx, events.EventBridgeEvent{}); return err }},
		{blueprint.FuncFinanceLeaseSweep, blueprint.FinanceLeaseSweepInterval, func() error { _, err := finance.SweepAllLeases(r.ctx, d.Base, d.Finance); return err }},
		{blueprint.FuncFlowRedrive, blueprint.FlowRedriveInterval, func() error { _, err := flowwire.RedriveAll(r.ctx, d.Base, d.Flows.Exec); return err }},
		{blueprint.FuncFlowPoll, blueprint.ReconcileInterval, func() error { _, err := flowwire.PollAll(r.ctx, d.Base, d.Flows.Poller); return err }},
		{blueprint.FuncSessionReaper, blueprint.SessionReaperInterval, func() error { _, err := d.ReapSessionsLambda(r.ctx, events.EventBridgeEvent{}); return err }},
	}
	r.reset()
	total := Usage{Calls: map[string]int{}, Units: map[string]float64{}}
	for _, s := range list {
		t := newTimer(r.meter, s.name)
		if err := t.time(s.run); err != nil {
			return pa, fmt.Errorf("%s: %w", s.name, err)
		}
		perDay := float64(24*time.Hour) / float64(s.every)
		u := r.meter.Take()
		for k, v := range u.Calls {
			total.Calls[k] += int(float64(v) * perDay)
		}
		for k, v := range u.Units {
			total.Units[k] += v * perDay
		}
		total.Events += int(float64(u.Events) * perDay)
		pa.Lambdas = append(pa.Lambdas, t.invocations(perDay))
	}
	logs := r.logs.take()
	pa.Usage = total
	pa.KMSRequests = float64(r.kms.take())
	runs := 0.0
	for _, l := range pa.Lambdas {
		runs += l.Count
	}
	pa.LogBytes = float64(logs)/float64(len(list))*runs + runs*lambdaPlatformLogBytes
	return pa, nil
}

// flowSetup stores the flow and the ownership override that lets the host ERP write the
// CRM Account's phone, and seeds n accounts in the fake CRM.
func (r *run) flowSetup(n int) error {
	for i := range n {
		r.crm.Seed("Account", fmt.Sprintf("C-%d", i), map[string]any{"Phone": "+49 40 0", "Name": "Cost"})
	}
	return flow.NewDynamoStore(r.deps.DB, r.deps.Config.Table(blueprint.Flows)).PutFlow(r.ctx, costTenant, costFlow)
}
