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

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
)

type publisher struct {
	mu     sync.Mutex
	events []governance.Event
	err    error
}

func (p *publisher) Publish(_ context.Context, e governance.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, e)
	return p.err
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
	a := &governance.EventAlerter{Events: pub, Metrics: &metrics, Now: func() time.Time { return t0 }}
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
		len(cw[0].Dimensions) != 2 || cw[0].Dimensions[0][0] != "tenant" || len(cw[0].Dimensions[1]) != 0 || cw[0].Metrics[0].Name != "OwnershipRejections" ||
		emf.Tenant != "acme" || emf.Count != 1 {
		t.Fatalf("EMF line %s", line)
	}

	if len(pub.events) != 1 {
		t.Fatalf("events %+v", pub.events)
	}
	ev := pub.events[0]
	if ev.Source != "syncassist.governance" || ev.DetailType != "OwnershipRejection" || !ev.Time.Equal(t0) {
		t.Fatalf("event %+v", ev)
	}
	var detail map[string]any
	if err := json.Unmarshal(ev.Detail, &detail); err != nil {
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
		"bus refuses": {err: errors.New("throttled")},
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
