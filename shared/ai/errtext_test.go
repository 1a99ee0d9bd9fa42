package ai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

// A provider's error answer can quote what it was sent or the credential it refused. The
// trace keeps its text redacted (the record policy); the error the governed client returns
// goes to the caller's log line ("diagnosis will be retried", "tool call failed"), so its
// text must be redacted the same way, while its sentinels still classify it.
func TestProviderErrorTextIsRedactedInTheReturnedError(t *testing.T) {
	t.Parallel()
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	for _, tc := range []struct {
		name   string
		status int
		want   error
	}{
		{"transient", 503, ai.ErrTransient},
		{"permanent", 401, ai.ErrPermanent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := aitest.NewModelServer(func(int, aitest.RecordedRequest) aitest.Reply {
				return aitest.OpenAIError(tc.status, "upstream refused aws_secret_access_key="+secret+" with Bearer "+jwt)
			})
			defer srv.Close()
			h := aitest.NewHarness(newOpenAI(t, srv, 0))
			_, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-leak", "se_claim", sampleRequest())
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			for _, v := range []string{secret, jwt} {
				if strings.Contains(err.Error(), v) {
					t.Errorf("the returned error quotes the provider's secret: %v", err)
				}
				if tr := h.Traces.Traces(); len(tr) != 1 || strings.Contains(tr[0].Error, v) {
					t.Errorf("trace %+v", tr)
				}
			}
			if !strings.Contains(err.Error(), "status "+map[int]string{503: "503", 401: "401"}[tc.status]) {
				t.Errorf("the redacted error lost what happened: %v", err)
			}
		})
	}
}
