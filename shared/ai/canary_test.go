package ai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

// canaryForms are the ways a canary could show up in a recorded byte stream: as is,
// JSON-escaped, without the card's spaces, and line by line for the key block.
func canaryForms(t *testing.T) []string {
	var forms []string
	for _, c := range aitest.Canaries {
		esc := string(mustMarshal(t, c.Value))
		forms = append(forms, c.Value, esc[1:len(esc)-1], strings.ReplaceAll(c.Value, " ", ""))
		for _, line := range strings.Split(c.Value, "\n") {
			if len(line) >= 16 {
				forms = append(forms, line)
			}
		}
	}
	return forms
}

func assertNoCanary(t *testing.T, where string, data []byte) {
	t.Helper()
	for _, f := range canaryForms(t) {
		if bytes.Contains(data, []byte(f)) {
			t.Errorf("%s contains the canary %q", where, f)
		}
	}
}

// canaryRequest plants every canary in the message, the payload and the context.
func canaryRequest(t *testing.T) ai.DiagnosisRequest {
	v := map[string]string{}
	for _, c := range aitest.Canaries {
		v[c.Type] = c.Value
	}
	payload := map[string]any{
		"shipcountry": "Deutschland",
		"email":       v["EMAIL"],
		"payment":     map[string]any{"cardNumber": v["CARD_NUMBER"], "holder": "Jane Doe"},
		"taxId":       v["US_SSN"],
		"notes":       "key for the SFTP drop: " + v["PRIVATE_KEY"],
		"lines":       []any{map[string]any{"sku": "WIDGET-RED-L", "memo": "token " + v["JWT"]}},
	}
	ctx := map[string]any{
		"integrationConfig": map[string]any{"awsSecretAccessKey": v["AWS_SECRET_KEY"]},
		"request":           map[string]any{"headers": map[string]any{"Authorization": "Bearer " + v["JWT"]}},
	}
	return ai.DiagnosisRequest{
		RecordType: "salesOrder", RecordID: "SO-10042", ErrorCode: "INVALID_FLD_VALUE",
		Message: "Invalid Field Value Deutschland for the following field: shipcountry (customer " + v["EMAIL"] +
			", card " + v["CARD_NUMBER"] + ", SSN " + v["US_SSN"] + ", secret " + v["AWS_SECRET_KEY"] + ")",
		ExternalSystem: "netsuite", Direction: "inbound",
		Payload: mustMarshal(t, payload), Context: mustMarshal(t, ctx),
	}
}

// echoingModel proposes the right fix plus one built from an anonymized value, as a model
// that copies its input would.
const echoingModel = `{"class":"value","retryable":false,"summary":"Country name instead of code; customer [EMAIL_1].","fix":[{"path":"shipcountry","before":"Deutschland","after":"DE"},{"path":"email","before":"[EMAIL_1]","after":"[EMAIL_1]"},{"path":"contactEmail","before":null,"after":"[EMAIL_1]"}],"rationale":"DE is Germany."}`

func TestCanariesNeverLeaveTheService(t *testing.T) {
	backends := []struct {
		name    string
		bedrock bool
		server  bool
	}{{"rules", false, false}, {"openai", false, true}, {"bedrock", true, true}}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			var srv *aitest.ModelServer
			var p ai.Provider
			if b.server {
				srv = aitest.NewModelServer(func(n int, r aitest.RecordedRequest) aitest.Reply {
					content := echoingModel
					switch {
					case bytes.Contains(r.Body, []byte("You help operators")):
						content = "Ask the customer at [EMAIL_1] for the country."
					case n > 0:
						content = `{"confidence":0.8}`
					}
					if b.bedrock {
						return aitest.BedrockReply(content, 900, 120)
					}
					return aitest.OpenAIReply(content, 900, 120)
				})
				defer srv.Close()
				if b.bedrock {
					p = newBedrock(t, srv, 0)
				} else {
					p = newOpenAI(t, srv, 0)
				}
			}
			h := aitest.NewHarness(p, aitest.Canaries...)
			id := operatorID()
			req := canaryRequest(t)

			d, err := h.Governed.Diagnose(context.Background(), id, "inf-canary", "se_canary", req)
			if err != nil {
				t.Fatal(err)
			}
			chat, err := h.Governed.Chat(context.Background(), id, "chat-canary", ai.ChatRequest{Messages: []ai.ChatMessage{
				{Role: ai.RoleSystem, Content: "You help operators."},
				{Role: ai.RoleUser, Content: "Why did " + req.Message + " fail?"},
			}})
			if err != nil {
				t.Fatal(err)
			}

			// The scanner really saw them: the test would prove nothing otherwise.
			if docs := h.Scanner.Docs(); len(docs) != 2 || !bytes.Contains(docs[0], []byte("4111 1111 1111 1111")) {
				t.Fatalf("the scanner did not see the canaries")
			}
			if srv != nil {
				if n := len(srv.Requests()); n != 3 {
					t.Fatalf("%d requests reached the model server, want 3", n)
				}
				assertNoCanary(t, "a request body the model server received", srv.Bodies())
				if !bytes.Contains(srv.Bodies(), []byte("[CARD_NUMBER_1]")) || !bytes.Contains(srv.Bodies(), []byte("Deutschland")) {
					t.Error("the model server did not get the anonymized request")
				}
			}
			assertNoCanary(t, "what the provider was called with", mustMarshal(t, h.Provider.Calls()))
			assertNoCanary(t, "the traces", mustMarshal(t, h.Traces.Traces()))
			assertNoCanary(t, "the cost records", mustMarshal(t, h.Costs.Costs()))
			assertNoCanary(t, "the audit events", mustMarshal(t, h.Audit.Events()))
			assertNoCanary(t, "the diagnosis", mustMarshal(t, d))
			assertNoCanary(t, "the chat answer", mustMarshal(t, chat))

			if d.Class != ai.ClassValue {
				t.Errorf("class %s", d.Class)
			}
			var kept []string
			for _, c := range d.Fix {
				kept = append(kept, c.Path)
				if strings.Contains(string(mustMarshal(t, c.After)), "[EMAIL") {
					t.Errorf("a placeholder reached the fix: %+v", c)
				}
			}
			if len(kept) != 1 || kept[0] != "shipcountry" {
				t.Errorf("fix paths %v, want only shipcountry", kept)
			}

			want := map[string]int{"CARD_NUMBER": 2, "AWS_SECRET_KEY": 2, "PRIVATE_KEY": 1, "US_SSN": 2, "EMAIL": 2, "JWT": 2}
			tr, ok := h.Traces.Trace("t1", "inf-canary", ai.OpDiagnose)
			if !ok || !equalCounts(tr.DLPFindings, want) {
				t.Errorf("trace findings %v, want %v", tr.DLPFindings, want)
			}
			if tr.TenantID != "t1" || tr.Identity.Actor != "user-42" {
				t.Errorf("trace attributed to %s/%s", tr.TenantID, tr.Identity.Actor)
			}
			for _, c := range h.Costs.Costs() {
				if c.TenantID != "t1" || c.Identity.Actor != "user-42" {
					t.Errorf("cost attributed to %s/%s", c.TenantID, c.Identity.Actor)
				}
			}
			scans := h.Audit.EventsWithKey(ai.ActionKeyDLPScan)
			if len(scans) != 2 {
				t.Fatalf("%d dlp.scan events, want one per governed call", len(scans))
			}
			s := scans[0]
			if s.ActionType != ai.ActionTypeDLP || s.Result != ai.ResultSuccess || s.Identity.TenantID != "t1" || s.Resource != "syncerror/se_canary" {
				t.Errorf("dlp.scan event %+v", s)
			}
			findings, _ := s.Details["findings"].(map[string]any)
			got := map[string]int{}
			for k, v := range findings {
				got[k] = int(v.(float64))
			}
			if !equalCounts(got, want) || s.Details["total"] != 11.0 {
				t.Errorf("dlp.scan details %v, want counts %v", s.Details, want)
			}
			inf := h.Audit.EventsWithKey(ai.ActionKeyInference)
			if len(inf) != 2 || inf[0].Result != ai.ResultSuccess || inf[0].Details["dlpFindings"] != 11.0 {
				t.Errorf("ai.inference events %+v", inf)
			}
		})
	}
}

func equalCounts(a, b map[string]int) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
