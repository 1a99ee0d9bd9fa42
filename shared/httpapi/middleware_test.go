package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A panic is answered 500 and logged with its stack, its value redacted by the DLP's record
// policy: a panic's message can quote what it failed on. Bytes are read as text, not
// printed as the decimal numbers fmt gives them, which the redaction could not read.
func TestPanicIsLoggedRedactedWithItsStack(t *testing.T) {
	const msg = "charge failed for jane.doe@example.com with card 4111 1111 1111 1111"
	for name, v := range map[string]any{
		"string":          msg,
		"error":           errors.New(msg),
		"bytes":           []byte(msg),
		"json.RawMessage": json.RawMessage(`{"note":"` + msg + `"}`),
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&buf, nil))
			h := Instrument(log, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(v) }))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/x", nil))
			if w.Code != http.StatusInternalServerError {
				t.Fatalf("status %d, want 500", w.Code)
			}
			out := buf.String()
			// The address as fmt prints bytes: "106 97 110 ...".
			decimal := strings.Trim(fmt.Sprint([]byte("jane.doe@example.com")), "[]")
			for _, leak := range []string{"jane.doe@example.com", "4111 1111 1111 1111", decimal} {
				if strings.Contains(out, leak) {
					t.Errorf("the log holds %q:\n%s", leak, out)
				}
			}
			if !strings.Contains(out, `"msg":"panic"`) || !strings.Contains(out, "charge failed for") ||
				!strings.Contains(out, "TestPanicIsLoggedRedactedWithItsStack") {
				t.Errorf("the log does not say what panicked and where:\n%s", out)
			}
		})
	}
}

// Bytes that say how they print are logged so: net.IP is a byte slice whose String is the
// address, not its four bytes as text.
func TestPanicTextKeepsAByteTypesOwnString(t *testing.T) {
	if got := panicText(net.IPv4(10, 1, 2, 3)); got != "10.1.2.3" {
		t.Errorf("panicText(net.IP) = %q, want 10.1.2.3", got)
	}
}
