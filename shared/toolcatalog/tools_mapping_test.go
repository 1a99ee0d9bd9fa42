package toolcatalog_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

// Refinement asks the governed AI client about the ambiguous targets only, with the
// samples anonymized, and applies its choice among the rules' candidates.
func TestFieldMappingAIRefinement(t *testing.T) {
	var prompts []string
	provider := &ai.FuncProvider{ProviderName: "fake", ChatFunc: func(_ context.Context, id *identity.Identity, req ai.ChatRequest) (ai.ChatResponse, ai.Usage, error) {
		if id == nil || id.TenantID != "acme" {
			return ai.ChatResponse{}, ai.Usage{}, errors.New("unattributed")
		}
		for _, m := range req.Messages {
			prompts = append(prompts, m.Content)
		}
		return ai.ChatResponse{Content: `Here you go: {"choices":[{"target":"Name","source":"legalName","confidence":0.9,` +
				`"reason":"the registered name is what the account carries"},{"target":"ghost","source":"x","confidence":1}]}`},
			ai.Usage{Model: "fake-1"}, nil
	}}
	auditor := aitest.NewAuditor()
	governed := ai.NewGoverned(provider, promptScanner{dlp.NewScanner()}, aitest.NewTraceStore(), aitest.NewCostStore(), auditor).WithClock(clock)
	args := map[string]any{
		"sourceSystem": "hosterp", "targetSystem": "crm",
		"sourceFields": []map[string]any{{"name": "companyName", "type": "string"}, {"name": "legalName", "type": "string"},
			{"name": "email", "type": "email"}},
		"targetFields": []map[string]any{{"name": "Name", "type": "string", "required": true},
			{"name": "Email", "type": "email"}},
		"sampleData": []map[string]any{{"companyName": "Acme, contact jane.doe@example.com", "legalName": "Acme Tools Inc.",
			"email": "jane.doe@example.com"}},
	}
	meta := map[string]any{toolcatalog.MetaRefine: true}
	type answer struct {
		Suggestions  []toolcatalog.Suggestion  `json:"suggestions"`
		AIRefinement *toolcatalog.AIRefinement `json:"aiRefinement"`
	}
	find := func(a answer, target string) toolcatalog.Suggestion {
		for _, s := range a.Suggestions {
			if s.TargetField == target {
				return s
			}
		}
		return toolcatalog.Suggestion{}
	}

	t.Run("without asking, rules only", func(t *testing.T) {
		e := newEnv(t, func(c *toolcatalog.Catalog) { c.AI = governed })
		a := decode[answer](t, e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, args, nil).Result.StructuredContent)
		if a.AIRefinement != nil || find(a, "Name").SourceField != "companyName" || len(prompts) != 0 {
			t.Errorf("refinement %+v, Name ← %s, %d prompts", a.AIRefinement, find(a, "Name").SourceField, len(prompts))
		}
	})
	t.Run("asked, with an AI client", func(t *testing.T) {
		e := newEnv(t, func(c *toolcatalog.Catalog) { c.AI = governed })
		cs := e.connect(t, operatorA, toolcatalog.ProtocolVersion)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: meta, Name: toolcatalog.ToolFieldMappingSuggest, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		a := decode[answer](t, structured(t, res))
		r := a.AIRefinement
		if r == nil || !r.Used || !slices.Equal(r.Targets, []string{"Name"}) || !slices.Equal(r.Changed, []string{"Name"}) {
			t.Fatalf("refinement %+v", r)
		}
		name := find(a, "Name")
		if name.SourceField != "legalName" || !name.RefinedByAI || name.Confidence > 0.95 ||
			!strings.Contains(name.Reasoning, "the AI refinement chose it") {
			t.Errorf("Name suggestion %+v", name)
		}
		if email := find(a, "Email"); email.SourceField != "email" || email.RefinedByAI {
			t.Errorf("Email suggestion %+v", email)
		}
		prompt := strings.Join(prompts, "\n")
		if strings.Contains(prompt, "jane.doe@example.com") || !strings.Contains(prompt, "[EMAIL") {
			t.Errorf("the prompt was not anonymized: %s", prompt)
		}
		if len(auditor.EventsWithKey(ai.ActionKeyInference)) != 1 {
			t.Errorf("inference not audited: %+v", auditor.Events())
		}
	})
	t.Run("asked, without an AI client", func(t *testing.T) {
		e := newEnv(t)
		a := decode[answer](t, e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, args, meta).Result.StructuredContent)
		if a.AIRefinement == nil || a.AIRefinement.Used || !strings.Contains(a.AIRefinement.Note, "no AI client") ||
			find(a, "Name").SourceField != "companyName" {
			t.Errorf("answer %+v", a)
		}
	})
	t.Run("the model fails: rules stand", func(t *testing.T) {
		failing := ai.NewGoverned(&ai.FuncProvider{ChatFunc: func(context.Context, *identity.Identity, ai.ChatRequest) (ai.ChatResponse, ai.Usage, error) {
			return ai.ChatResponse{}, ai.Usage{}, fmt.Errorf("throttled: %w", ai.ErrTransient)
		}}, promptScanner{dlp.NewScanner()}, aitest.NewTraceStore(), aitest.NewCostStore(), aitest.NewAuditor())
		e := newEnv(t, func(c *toolcatalog.Catalog) { c.AI = failing })
		res := e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, args, meta)
		a := decode[answer](t, res.Result.StructuredContent)
		if res.Result.IsError || a.AIRefinement.Used || find(a, "Name").SourceField != "companyName" {
			t.Errorf("answer %s", res.Result.StructuredContent)
		}
	})
}

// promptScanner is ai.PromptScanner over DLP's AI-prompt policy, as the service wires it.
type promptScanner struct{ s *dlp.Scanner }

func (p promptScanner) Anonymize(_ context.Context, doc []byte) ([]byte, map[string]int, error) {
	r, err := p.s.ScanJSON(dlp.AIPrompt, doc)
	if err != nil {
		return nil, nil, err
	}
	return r.Output, r.Counts(), nil
}

func (p promptScanner) RedactText(_ context.Context, text string) (string, error) {
	return p.s.RedactString(dlp.Record, text)
}

func TestFieldMappingAnswer(t *testing.T) {
	e := newEnv(t)
	res := e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, map[string]any{
		"sourceSystem": "webshop", "targetSystem": "hosterp",
		"sourceFields": []map[string]any{{"name": "billing_zip", "type": "string"}, {"name": "shipping_zip", "type": "string"},
			{"name": "contact", "type": "string"}, {"name": "qty", "type": "integer"}},
		"targetFields": []map[string]any{{"name": "shipToPostalCode", "type": "string", "required": true},
			{"name": "billToPostalCode", "type": "string"}, {"name": "quantity", "type": "number"},
			{"name": "subsidiary", "type": "reference", "required": true}, {"name": "email", "type": "email", "required": true}},
		"sampleData": []map[string]any{{"billing_zip": "04101", "shipping_zip": "73301", "contact": "ana@example.com", "qty": 3}},
	}, nil)
	a := decode[toolcatalog.MappingResult](t, res.Result.StructuredContent)
	got := map[string]string{}
	for _, s := range a.Suggestions {
		got[s.TargetField] = s.SourceField
		if s.Reasoning == "" || s.Confidence < toolcatalog.DefaultConfidenceThreshold {
			t.Errorf("suggestion %+v", s)
		}
	}
	want := map[string]string{"shipToPostalCode": "shipping_zip", "billToPostalCode": "billing_zip", "quantity": "qty",
		"email": "contact"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("suggestions %v, want %v", got, want)
	}
	if len(a.UnmappedRequiredTargets) != 1 || a.UnmappedRequiredTargets[0].Name != "subsidiary" ||
		a.Coverage.RequiredTargets != 3 || a.Coverage.RequiredMapped != 2 || a.ConfidenceThreshold != 0.5 {
		t.Errorf("coverage %+v unmapped %+v", a.Coverage, a.UnmappedRequiredTargets)
	}
	if !slices.Contains(a.SampleData.Formats, toolcatalog.FieldFormat{Field: "contact", Format: "email addresses", Matched: 1, Seen: 1}) ||
		a.SampleData.Records != 1 {
		t.Errorf("sample report %+v", a.SampleData)
	}
	// A higher threshold keeps only the sure ones.
	strict := decode[toolcatalog.MappingResult](t, e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, map[string]any{
		"sourceSystem": "a", "targetSystem": "b", "confidenceThreshold": 0.9,
		"sourceFields": []map[string]any{{"name": "contact", "type": "string"}, {"name": "qty", "type": "integer"}},
		"targetFields": []map[string]any{{"name": "quantity", "type": "integer"}, {"name": "email", "type": "email"}},
	}, nil).Result.StructuredContent)
	if len(strict.Suggestions) != 1 || strict.Suggestions[0].TargetField != "quantity" {
		t.Errorf("threshold 0.9: %+v", strict.Suggestions)
	}
}

// A sample number keeps its digits: a 19-digit card number sent as a JSON number was
// read as a float64, whose rounding fails the card checksum, so sampleData's scan found
// nothing and the refinement prompt carried its leading digits to the model unmasked.
func TestFieldMappingSampleNumbersKeepTheirDigits(t *testing.T) {
	const pan = "6221260123456789016" // 19 digits, Luhn-valid, past 2^53
	var prompts []string
	provider := &ai.FuncProvider{ProviderName: "fake", ChatFunc: func(_ context.Context, _ *identity.Identity, req ai.ChatRequest) (ai.ChatResponse, ai.Usage, error) {
		for _, m := range req.Messages {
			prompts = append(prompts, m.Content)
		}
		return ai.ChatResponse{Content: `{"choices":[]}`}, ai.Usage{Model: "fake-1"}, nil
	}}
	governed := ai.NewGoverned(provider, promptScanner{dlp.NewScanner()}, aitest.NewTraceStore(), aitest.NewCostStore(), aitest.NewAuditor()).WithClock(clock)
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.AI = governed })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service.field_mapping_suggest",` +
		`"_meta":{"` + toolcatalog.MetaRefine + `":true},"arguments":{"sourceSystem":"webshop","targetSystem":"hosterp",` +
		`"sourceFields":[{"name":"cardNumber","type":"string"},{"name":"cardNo2","type":"string"}],` +
		`"targetFields":[{"name":"paymentCard","type":"string"}],"sampleData":[{"cardNumber":` + pan + `,"cardNo2":` + pan + `}]}}}`
	res := e.post(t, operatorA, []byte(body), nil)
	a := decode[struct {
		Result struct {
			StructuredContent toolcatalog.MappingResult `json:"structuredContent"`
		} `json:"result"`
	}](t, res.body).Result.StructuredContent
	if !slices.Contains(a.SampleData.Counts, toolcatalog.TypeCount{Type: "card_number", Count: 2}) {
		t.Errorf("sampleData findings %+v, want the two card numbers", a.SampleData)
	}
	if len(prompts) == 0 {
		t.Fatal("the model was not asked")
	}
	for _, p := range prompts {
		if strings.Contains(p, pan[:12]) {
			t.Errorf("the prompt carries the card's digits: %s", p)
		}
	}
}

// A field object is open: members beyond name, type, description and required are
// ignored, whatever their case. encoding/json took "Type": 5 into the field's type (the
// call failed as internal_error) and "Name" over the name the schema checked.
func TestFieldMappingIgnoresMembersSpeltLikeItsOwn(t *testing.T) {
	e := newEnv(t)
	res := e.rawCall(t, operatorA, toolcatalog.ToolFieldMappingSuggest, map[string]any{
		"sourceSystem": "webshop", "targetSystem": "hosterp",
		"sourceFields": []map[string]any{{"name": "email", "type": "string", "Type": 5, "Required": "yes", "Name": "zip"}},
		"targetFields": []map[string]any{{"name": "emailAddress", "type": "email", "NAME": ""}},
	}, nil)
	if res.Result.IsError {
		t.Fatalf("isError: %s", res.body)
	}
	a := decode[toolcatalog.MappingResult](t, res.Result.StructuredContent)
	if len(a.Suggestions) != 1 || a.Suggestions[0].SourceField != "email" || a.Suggestions[0].TargetField != "emailAddress" {
		t.Errorf("suggestions %+v", a.Suggestions)
	}
}
