package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const (
	leakEmail = "jane.doe@example.com"
	leakCard  = "4111 1111 1111 1111"
	leakJWT   = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	leakPass  = "hunter2-Correct"
)

// logLine logs through NewLoggerTo and returns the one JSON line it wrote, decoded, and as
// written.
func logLine(t *testing.T, do func(*slog.Logger)) (map[string]any, string) {
	t.Helper()
	var buf bytes.Buffer
	do(NewLoggerTo(&buf, slog.LevelInfo))
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("not one JSON line: %v\n%s", err, buf.String())
	}
	return rec, buf.String()
}

func assertNoLeak(t *testing.T, out string, leaks ...string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(out, l) || strings.Contains(out, base64.StdEncoding.EncodeToString([]byte(l))) {
			t.Errorf("the log holds %q (or its base64):\n%s", l, out)
		}
	}
}

// Every record a function logs passes the DLP's record policy, whatever the caller put in
// it: the message, strings, errors, bytes, raw JSON, a credential's name, groups, and the
// attributes a logger was made With.
func TestLogsAreRedacted(t *testing.T) {
	rec, out := logLine(t, func(l *slog.Logger) {
		l.With("customer", leakEmail).WithGroup("vendor").Error("charge failed for "+leakEmail,
			"card", leakCard,
			"error", errors.New("401 from vendor: Bearer "+leakJWT),
			"body", []byte(leakEmail),
			"payload", json.RawMessage(`{"note":"card `+leakCard+`","qty":3}`),
			"password", leakPass,
			"truncated", json.RawMessage(`{"note":"card `+leakCard),
			slog.Group("contact", "mail", leakEmail, "kind", "billing"),
		)
	})
	// Bytes as fmt prints them, which no scan reads: "106 97 110 ...".
	decimal := strings.Trim(fmt.Sprint([]byte(leakCard)), "[]")
	assertNoLeak(t, out, leakEmail, leakCard, leakJWT, leakPass, decimal)
	if msg, _ := rec["msg"].(string); !strings.HasPrefix(msg, "charge failed for ") {
		t.Errorf("msg = %q: the text around the finding is gone", msg)
	}
	vendor, _ := rec["vendor"].(map[string]any)
	if vendor == nil {
		t.Fatalf("no vendor group:\n%s", out)
	}
	if p, _ := vendor["payload"].(map[string]any); p == nil || p["qty"] != float64(3) {
		t.Errorf("payload = %v: raw JSON is still JSON after redaction, its other members kept", vendor["payload"])
	}
	if e, _ := vendor["error"].(string); !strings.HasPrefix(e, "401 from vendor") {
		t.Errorf("error = %q: an error is logged by its (redacted) text", vendor["error"])
	}
	if c, _ := vendor["contact"].(map[string]any); c == nil || c["kind"] != "billing" {
		t.Errorf("contact = %v: a group keeps its members", vendor["contact"])
	}
}

// A record with nothing to redact is written as it came: numbers stay numbers, bytes stay
// base64 as the JSON handler writes them, the level gate is the handler's.
func TestCleanLogsPassUnchanged(t *testing.T) {
	rec, out := logLine(t, func(l *slog.Logger) {
		l.Debug("not written")
		l.Info("request", "method", "POST", "path", "/api/sync-error-assist/ingest", "status", 202,
			"durationMs", 1.25, "ok", true, "raw", []byte("plain"))
	})
	if strings.Contains(out, "not written") {
		t.Errorf("a debug record passed an info logger:\n%s", out)
	}
	want := map[string]any{"msg": "request", "method": "POST", "path": "/api/sync-error-assist/ingest",
		"status": float64(202), "durationMs": 1.25, "ok": true, "raw": base64.StdEncoding.EncodeToString([]byte("plain"))}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("%s = %#v, want %#v\n%s", k, rec[k], v, out)
		}
	}
}

func BenchmarkRedactedRequestLine(b *testing.B) {
	var buf bytes.Buffer
	l := NewLoggerTo(&buf, slog.LevelInfo).With("requestId", "8f7c2a4e-4d1b-4b8e-9a57-3f0d2c1e6b90", "correlationId", "c-01JD5")
	for b.Loop() {
		buf.Reset()
		l.Info("request", "method", "POST", "path", "/api/sync-error-assist/ingest", "status", 202, "durationMs", 1.25)
	}
}

// BenchmarkPlainRequestLine is the same line through the JSON handler alone: what the
// redaction adds is the difference.
func BenchmarkPlainRequestLine(b *testing.B) {
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, nil)).With("requestId", "8f7c2a4e-4d1b-4b8e-9a57-3f0d2c1e6b90", "correlationId", "c-01JD5")
	for b.Loop() {
		buf.Reset()
		l.Info("request", "method", "POST", "path", "/api/sync-error-assist/ingest", "status", 202, "durationMs", 1.25)
	}
}

// secretValuer answers clean the first time it is asked and its secret after: what is scanned must be
// what is written.
type secretValuer struct{ asked *int }

func (v secretValuer) LogValue() slog.Value {
	*v.asked++
	if *v.asked == 1 {
		return slog.StringValue("nothing to see")
	}
	return slog.StringValue("card " + leakCard)
}

func TestLogValuersAreScannedAsWritten(t *testing.T) {
	asked := 0
	_, out := logLine(t, func(l *slog.Logger) {
		l.Info("valuer", "v", secretValuer{&asked}, slog.Group("g", "w", secretValuer{new(int)}))
	})
	assertNoLeak(t, out, leakCard)
}
