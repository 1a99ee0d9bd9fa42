package httpapi

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A panic is answered 500 and logged with its stack, its value redacted as every log
// record is: a panic's message can quote what it failed on.
func TestPanicIsLoggedRedactedWithItsStack(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	h := Instrument(log, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("charge failed for jane.doe@example.com with card 4111 1111 1111 1111")
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/x", nil))
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", w.Code)
	}
	out := buf.String()
	for _, leak := range []string{"jane.doe@example.com", "4111 1111 1111 1111"} {
		if strings.Contains(out, leak) {
			t.Errorf("the log holds %q:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, `"msg":"panic"`) || !strings.Contains(out, "charge failed for") ||
		!strings.Contains(out, "TestPanicIsLoggedRedactedWithItsStack") {
		t.Errorf("the log does not say what panicked and where:\n%s", out)
	}
}
