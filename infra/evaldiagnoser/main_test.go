package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai/aitest"
)

const corpus = `{"use":"held out: a test corpus","description":"two cases","cases":[
 {"name":"reset","system":"hubspot","request":{"recordType":"contact","recordId":"c-1","errorCode":"ECONNRESET","message":"read ECONNRESET while writing jane.doe@example.com","externalSystem":"hubspot"},"expect":{"class":"connection"}},
 {"name":"dup","system":"netsuite","request":{"recordType":"customer","recordId":"C-1","errorCode":"DUP_ENTITY","message":"This entity already exists.","externalSystem":"netsuite"},"expect":{"class":"duplicate"}}
]}`

func writeCorpus(t *testing.T) string {
	f := filepath.Join(t.TempDir(), "corpus.json")
	if err := os.WriteFile(f, []byte(corpus), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestRulesByDefault(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"-v", writeCorpus(t)}, env(nil), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"provider rules", "use: held out: a test corpus", "accuracy 1.000 (2/2)", "ok   reset", "calibration"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestModelServerThroughDLP runs the harness against an OpenAI-compatible server (the
// test model server): it answers "value" to everything, so neither case is right, and
// it never sees the e-mail address in the message.
func TestModelServerThroughDLP(t *testing.T) {
	srv := aitest.NewModelServer(func(_ int, r aitest.RecordedRequest) aitest.Reply {
		if strings.Contains(string(r.Body), "You review a proposed diagnosis") {
			return aitest.OpenAIReply(`{"confidence": 0.8}`, 50, 5)
		}
		return aitest.OpenAIReply(`{"class":"value","retryable":false,"summary":"a value","fix":[],"rationale":"guess"}`, 100, 20)
	})
	defer srv.Close()
	var out strings.Builder
	err := run(context.Background(), []string{writeCorpus(t)}, env(map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "AI_MODEL": "gpt-4o-mini"}), &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"provider openai (gpt-4o-mini at " + srv.URL, "accuracy 0.000 (0/2)", "tokens in 300, out 50"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d model calls, want 4 (suggest and assess per case)", n)
	}
	if strings.Contains(string(srv.Bodies()), "jane.doe@example.com") {
		t.Error("the model server saw an e-mail address DLP should have anonymized")
	}
}
