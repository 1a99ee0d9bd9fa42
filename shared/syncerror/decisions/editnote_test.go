package decisions_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// The history is kept at rest and shown to every operator, so the edit an approve's entry
// names keeps nothing of a credential typed into it: not the four characters at each end
// that the display form keeps of an AWS key, a GitHub token, a Stripe key or a JWT. (The
// entry kept "AKIA************Y12X", "ghp_****************3z5A" and so on.)
func TestAnEditsHistoryKeepsNoPartOfACredential(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	now := func() time.Time { return clock }
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Now: now,
		Mask: &syncerror.Masker{Scanner: dlp.NewScanner()}}}}, Fixes: f.Writer}
	f.Mux.Handle("POST /p/{id}/approve2", op.ApproveHandler())
	c := roomtest.ReadyClaim(t, f.Claims, "t1", "e-1", clock)
	// The guard refuses a credential (dlp_blocked); the entry stays in the history.
	f.Writer.Err = &syncerror.RefusedError{Status: http.StatusUnprocessableEntity, Code: "dlp_blocked", Reason: "the fix carries a secret"}
	secrets := []struct{ path, value string }{
		{"awsKey", "AKIAZ3MPLE7QWERTY12X"},
		{"ghToken", "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"},
		{"stripeKey", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{"session", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"},
	}
	body := `{"fix":[{"path":"shipcountry","after":"AT"}`
	for _, s := range secrets {
		body += `,{"path":"` + s.path + `","after":"` + s.value + `"}`
	}
	if w := f.Call(t, "t1", http.MethodPost, "/p/"+c.ID+"/approve2", body+`]}`); w.Code != http.StatusUnprocessableEntity {
		t.Fatalf("set-up: %d %s", w.Code, w.Body)
	}
	row, err := f.Claims.Get(context.Background(), "t1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, h := range row.History {
		if h.Action == "approve" {
			note = h.Note
		}
	}
	if !strings.Contains(note, `shipcountry = "AT"`) || strings.Count(note, "[REDACTED:") != len(secrets) {
		t.Fatalf("approve entry %q", note)
	}
	for _, s := range secrets {
		// Neither end of the value: the display form keeps four characters of each.
		if head, tail := s.value[:4], s.value[len(s.value)-4:]; strings.Contains(note, head) || strings.Contains(note, tail) {
			t.Errorf("the history keeps part of %s (%q or %q): %q", s.path, head, tail, note)
		}
	}
}
