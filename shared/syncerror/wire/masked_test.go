package wire

import (
	"net/http"
	"testing"
)

// An edit that carries a DLP mask back (the masked payload an operator sees, or an AI
// placeholder) answers 422 dlp_masked_value through the real guard, and nothing is written.
func TestApproveOfAMaskedValueWritesNothing(t *testing.T) {
	for _, after := range []string{`"*****6789"`, `"[REDACTED:PASSWORD_FIELD]"`, `"[EMAIL_1]"`, `"card 411111******1111"`} {
		f := newFixture(t)
		c := f.ready(t, "E-1")
		w := f.call(t, f.op.ApproveHandler(), c.ID, `{"fix":[{"path":"shipcountry","after":`+after+`}]}`)
		if w.Code != http.StatusUnprocessableEntity || code(w) != "dlp_masked_value" {
			t.Fatalf("%s: %d %s", after, w.Code, w.Body)
		}
		if n := f.conns.Count(); n != 0 {
			t.Fatalf("%s: %d writes reached the host ERP", after, n)
		}
	}
}
