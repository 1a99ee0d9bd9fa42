package governance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
)

type publisher struct {
	mu     sync.Mutex
	inputs []*eventbridge.PutEventsInput
	err    error
	failed int32
}

func (p *publisher) PutEvents(_ context.Context, in *eventbridge.PutEventsInput, _ ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inputs = append(p.inputs, in)
	if p.err != nil {
		return nil, p.err
	}
	out := &eventbridge.PutEventsOutput{FailedEntryCount: p.failed}
	if p.failed > 0 {
		out.Entries = []ebtypes.PutEventsResultEntry{{ErrorCode: aws.String("InternalFailure")}}
	}
	return out, nil
}

func sampleRejection() governance.OwnershipRejection {
	return governance.OwnershipRejection{
		ID: "rej-1", Time: t0, Tenant: "acme", Entity: "salesOrder", DeclaredOwner: hosterp, Caller: crm,
		Target: hosterp, Policy: governance.PolicyRejectWithAlert, CorrelationID: "corr-1",
		Resource: "hosterp/salesOrder/SO-1", Fields: []string{"status"},
	}
}

func TestEventAlerter(t *testing.T) {
	t.Parallel()
	var logs, metrics bytes.Buffer
	ctx := httpapi.WithCorrelation(context.Background(), slog.New(slog.NewJSONHandler(&logs, nil)), "corr-1")
	pub := &publisher{}
	a := &governance.EventAlerter{Events: pub, BusName: "ops-bus", Metrics: &metrics, Now: func() time.Time { return t0 }}
	if err := a.Alert(ctx, sampleRejection()); err != nil {
		t.Fatal(err)
	}

	var emf struct {
		AWS struct {
			Timestamp         int64 `json:"Timestamp"`
			CloudWatchMetrics []struct {
				Namespace  string     `json:"Namespace"`
				Dimensions [][]string `json:"Dimensions"`
				Metrics    []struct {
					Name string `json:"Name"`
					Unit string `json:"Unit"`
				} `json:"Metrics"`
			} `json:"CloudWatchMetrics"`
		} `json:"_aws"`
		Tenant string  `json:"tenant"`
		Count  float64 `json:"OwnershipRejections"`
	}
	line := strings.TrimSpace(metrics.String())
	if strings.Count(line, "\n") != 0 {
		t.Fatalf("want one EMF line, got %q", line)
	}
	if err := json.Unmarshal([]byte(line), &emf); err != nil {
		t.Fatal(err)
	}
	cw := emf.AWS.CloudWatchMetrics
	if emf.AWS.Timestamp != t0.UnixMilli() || len(cw) != 1 || cw[0].Namespace != "SyncAssist" ||
		len(cw[0].Dimensions) != 1 || cw[0].Dimensions[0][0] != "tenant" || cw[0].Metrics[0].Name != "OwnershipRejections" ||
		emf.Tenant != "acme" || emf.Count != 1 {
		t.Fatalf("EMF line %s", line)
	}

	if len(pub.inputs) != 1 || len(pub.inputs[0].Entries) != 1 {
		t.Fatalf("events %+v", pub.inputs)
	}
	ev := pub.inputs[0].Entries[0]
	if aws.ToString(ev.Source) != "syncassist.governance" || aws.ToString(ev.DetailType) != "OwnershipRejection" ||
		aws.ToString(ev.EventBusName) != "ops-bus" || !aws.ToTime(ev.Time).Equal(t0) {
		t.Fatalf("event %+v", ev)
	}
	var detail map[string]any
	if err := json.Unmarshal([]byte(aws.ToString(ev.Detail)), &detail); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"tenant": "acme", "entity": "salesOrder", "declaredOwner": "hosterp",
		"caller": "crm", "policy": "reject_with_alert", "correlationId": "corr-1", "resource": "hosterp/salesOrder/SO-1"} {
		if detail[k] != want {
			t.Errorf("detail %s = %v, want %v", k, detail[k], want)
		}
	}

	var rec map[string]any
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("log %q: %v", logs.String(), err)
	}
	if rec["level"] != "ERROR" || rec["rejectionId"] != "rej-1" || rec["correlationId"] != "corr-1" || rec["tenant"] != "acme" {
		t.Fatalf("log record %v", rec)
	}
}

func TestEventAlerterWithoutBus(t *testing.T) {
	t.Parallel()
	var metrics bytes.Buffer
	a := &governance.EventAlerter{Metrics: &metrics}
	if err := a.Alert(context.Background(), sampleRejection()); err != nil || metrics.Len() == 0 {
		t.Fatalf("err %v, metric %q", err, metrics.String())
	}
}

func TestEventAlerterReportsFailures(t *testing.T) {
	t.Parallel()
	for name, pub := range map[string]*publisher{
		"call fails":   {err: errors.New("throttled")},
		"entry failed": {failed: 1},
	} {
		var metrics bytes.Buffer
		a := &governance.EventAlerter{Events: pub, Metrics: &metrics}
		if err := a.Alert(context.Background(), sampleRejection()); err == nil {
			t.Errorf("%s: no error", name)
		}
		if metrics.Len() == 0 {
			t.Errorf("%s: the metric was not emitted", name)
		}
	}
}
