package ai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

// costLine is what an AICostUSD line must carry for CloudWatch to make it a metric per
// tenant.
type costLine struct {
	AWS struct {
		CloudWatchMetrics []struct {
			Namespace  string
			Dimensions [][]string
			Metrics    []struct{ Name, Unit string }
		}
	} `json:"_aws"`
	AICostUSD    float64
	Tenant       string `json:"tenant"`
	Model        string `json:"model"`
	InputTokens  int    `json:"inputTokens"`
	OutputTokens int    `json:"outputTokens"`
}

// diagnoseWithMetrics runs one diagnosis with p (nil: OpenAI, two billed calls) and
// returns its metric lines, the cost records stored and its error.
func diagnoseWithMetrics(t *testing.T, p ai.Provider, prepare func(h *aitest.Harness)) ([]costLine, []ai.CostRecord, error) {
	t.Helper()
	if p == nil {
		srv := aitest.NewModelServer(diagnosisThenConfidence(false, modelDiagnosis))
		t.Cleanup(srv.Close)
		p = newOpenAI(t, srv, 0)
	}
	h := aitest.NewHarness(p)
	var out bytes.Buffer
	h.Governed = h.Governed.WithMetrics(&out)
	if prepare != nil {
		prepare(h)
	}
	_, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "se_1", sampleRequest())
	var lines []costLine
	for _, raw := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		var l costLine
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("not JSON: %v: %s", err, raw)
		}
		lines = append(lines, l)
	}
	return lines, h.Costs.Costs(), err
}

func TestInferenceCostIsOneMetricLinePerTenant(t *testing.T) {
	lines, costs, err := diagnoseWithMetrics(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 {
		t.Fatalf("%d lines, want one per inference", len(lines))
	}
	var want float64
	for _, c := range costs {
		want += c.CostUSD
	}
	l := lines[0]
	if want <= 0 || math.Abs(l.AICostUSD-want) > 1e-12 {
		t.Errorf("AICostUSD %v, want the %d cost records' %v", l.AICostUSD, len(costs), want)
	}
	m := l.AWS.CloudWatchMetrics
	if len(m) != 1 || m[0].Namespace != "SyncAssist" || !reflect.DeepEqual(m[0].Dimensions, [][]string{{"tenant"}, {}}) ||
		!reflect.DeepEqual(m[0].Metrics, []struct{ Name, Unit string }{{ai.MetricAICost, "None"}}) {
		t.Errorf("metric definition %+v", m)
	}
	if l.Tenant != "t1" || l.Model != openAIModel || l.InputTokens != 2400 || l.OutputTokens != 300 {
		t.Errorf("line %+v", l)
	}
}

// The provider bills its calls whatever becomes of the records.
func TestInferenceCostIsCountedWhenItsRecordsFail(t *testing.T) {
	lines, _, err := diagnoseWithMetrics(t, nil, func(h *aitest.Harness) { h.Costs.FailWith(errors.New("throttled")) })
	if !errors.Is(err, ai.ErrTransient) {
		t.Fatalf("err %v, want ErrTransient", err)
	}
	if len(lines) != 1 || lines[0].AICostUSD <= 0 {
		t.Fatalf("lines %+v, want the billed cost", lines)
	}
}

// Nothing billed, nothing counted: a refused scan sends nothing, and a call that failed
// before the model answered used no tokens.
func TestUnbilledInferenceWritesNoCostLine(t *testing.T) {
	for name, c := range map[string]struct {
		provider ai.Provider
		prepare  func(h *aitest.Harness)
	}{
		"scan refused":  {prepare: func(h *aitest.Harness) { h.Scanner.FailWith(errors.New("detector crashed")) }},
		"provider down": {provider: aitest.NewFailingProvider(fmt.Errorf("upstream 503: %w", ai.ErrTransient))},
	} {
		t.Run(name, func(t *testing.T) {
			lines, _, err := diagnoseWithMetrics(t, c.provider, c.prepare)
			if err == nil {
				t.Fatal("the inference succeeded")
			}
			if len(lines) != 0 {
				t.Fatalf("lines %+v for an inference nothing billed", lines)
			}
		})
	}
}
