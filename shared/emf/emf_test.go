package emf_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
)

func TestWriteIsOneEMFLine(t *testing.T) {
	var b bytes.Buffer
	at := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	if err := emf.Write(&b, emf.Metric{Time: at, Counts: map[string]float64{"B": 2, "A": 1}, Dimensions: []string{"tenant"},
		Fields: map[string]any{"tenant": "acme"}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AWS struct {
			Timestamp         int64
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		} `json:"_aws"`
		Tenant string  `json:"tenant"`
		A, B   float64 `json:"-"`
	}
	line := b.Bytes()
	if bytes.Count(line, []byte("\n")) != 1 || json.Unmarshal(line, &doc) != nil {
		t.Fatalf("line %q", line)
	}
	m := doc.AWS.CloudWatchMetrics
	if doc.AWS.Timestamp != at.UnixMilli() || len(m) != 1 || m[0].Namespace != "SyncAssist" || m[0].Dimensions[0][0] != "tenant" || len(m[0].Dimensions) != 2 || len(m[0].Dimensions[1]) != 0 ||
		len(m[0].Metrics) != 2 || m[0].Metrics[0].Name != "A" || doc.Tenant != "acme" || !bytes.Contains(line, []byte(`"B":2`)) {
		t.Fatalf("doc %+v from %s", doc, line)
	}
}

// A rollup is reported beside the full set and before the service-wide aggregate.
func TestWriteReportsRollups(t *testing.T) {
	var b bytes.Buffer
	if err := emf.Write(&b, emf.Metric{Time: time.Unix(0, 0), Counts: map[string]float64{"N": 1},
		Dimensions: []string{"decision", "system"}, Rollups: [][]string{{"decision"}},
		Fields: map[string]any{"decision": "written", "system": "crm"}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		AWS struct {
			CloudWatchMetrics []struct{ Dimensions [][]string }
		} `json:"_aws"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.AWS.CloudWatchMetrics[0].Dimensions
	if len(got) != 3 || len(got[0]) != 2 || got[0][0] != "decision" || got[0][1] != "system" ||
		len(got[1]) != 1 || got[1][0] != "decision" || len(got[2]) != 0 {
		t.Fatalf("dimension sets %q", got)
	}
	// Without dimensions only the aggregate is reported, rollups or not.
	b.Reset()
	if err := emf.Write(&b, emf.Metric{Time: time.Unix(0, 0), Counts: map[string]float64{"N": 1}}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"Dimensions":[[]]`)) {
		t.Fatalf("line %s", b.Bytes())
	}
}
