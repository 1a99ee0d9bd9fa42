package ai

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRetryableClasses(t *testing.T) {
	retryable := map[ErrorClass]bool{ClassConnection: true, ClassIntermittent: true, ClassRateLimit: true}
	for _, c := range Classes() {
		if c.Retryable() != retryable[c] {
			t.Errorf("%s.Retryable() = %v", c, c.Retryable())
		}
		if !c.Valid() {
			t.Errorf("%s not valid", c)
		}
	}
	if ErrorClass("network").Valid() || ErrorClass("").Retryable() {
		t.Error("unknown class accepted")
	}
	for _, c := range []ErrorClass{"value", "missing", "reference", "duplicate", "permission", "connection", "intermittent", "rate_limit", "too_large", "parse"} {
		if !c.Valid() {
			t.Errorf("required class %s missing", c)
		}
	}
}

func TestDiagnosisJSONIsCamelCase(t *testing.T) {
	raw, _ := json.Marshal(Diagnosis{Class: ClassValue, Fix: []FieldChange{{Path: "a", Before: nil, After: "b"}}})
	want := `{"class":"value","retryable":false,"summary":"","fix":[{"path":"a","before":null,"after":"b"}],"rationale":"","confidence":0}`
	if string(raw) != want {
		t.Errorf("got %s\nwant %s", raw, want)
	}
}

func TestPaths(t *testing.T) {
	for _, p := range []string{"a", "a.b", "items[0].sku", "a[2][3].b", `["a.b"].c`, `x["y]z"][0]`, `m["odd \"key\""]`} {
		segs, err := parsePath(p)
		if err != nil {
			t.Errorf("%q: %v", p, err)
			continue
		}
		again, err := parsePath(formatPath(segs))
		if err != nil || !reflect.DeepEqual(again, segs) {
			t.Errorf("%q formats as %q, which reads back as %v (%v)", p, formatPath(segs), again, err)
		}
	}
	for _, p := range []string{"", ".", "a.", ".a", "a..b", "a[", "a[x]", "a[-1]", "a]b", `a["b]`, "a b[0"} {
		if _, err := parsePath(p); err == nil && p != "a b[0" {
			t.Errorf("%q parsed", p)
		}
	}
}

func TestResolveIgnoresCaseOnlyWhenNeeded(t *testing.T) {
	doc, _ := decodeObject(json.RawMessage(`{"ShipTo":{"Country":"DE","country":"AT"},"items":[{"SKU":"x"}]}`))
	for path, want := range map[string]any{"ShipTo.country": "AT", "shipto.Country": "DE", "items[0].sku": "x"} {
		segs, _ := parsePath(path)
		v, _, ok := resolve(doc, segs)
		if !ok || v != want {
			t.Errorf("%s = %v, %v; want %v", path, v, ok, want)
		}
	}
	segs, _ := parsePath("items[3].sku")
	if _, _, ok := resolve(doc, segs); ok {
		t.Error("resolved an index past the end")
	}
}

func TestPriceTable(t *testing.T) {
	cases := []struct {
		model   string
		in, out float64
		ok      bool
	}{
		{RulesModel, 0, 0, true},
		{"gpt-4o-mini", 0.00015, 0.0006, true},
		{"gpt-4o-mini-2024-07-18", 0.00015, 0.0006, true},
		{"gpt-4o-2024-08-06", 0.0025, 0.01, true},
		{"anthropic.claude-3-5-haiku-20241022-v1:0", 0.0008, 0.004, true},
		{"us.anthropic.claude-3-5-haiku-20241022-v1:0", 0.0008, 0.004, true},
		{"eu.amazon.nova-lite-v1:0", 0.00006, 0.00024, true},
		{"llama3.1:8b", 0, 0, false},
		{"gpt-4o-mini-preview", 0, 0, false},
	}
	for _, c := range cases {
		in, out, ok := Price(c.model)
		if in != c.in || out != c.out || ok != c.ok {
			t.Errorf("Price(%q) = %v, %v, %v; want %v, %v, %v", c.model, in, out, ok, c.in, c.out, c.ok)
		}
	}
	if got := Cost(Usage{InputTokens: 2000, OutputTokens: 500, Model: "gpt-4o"}); math.Abs(got-(0.005+0.005)) > 1e-12 {
		t.Errorf("Cost = %v", got)
	}
	if Cost(Usage{InputTokens: 2000, Model: "local-llm"}) != 0 || Priced("local-llm") {
		t.Error("an unknown model has a price")
	}
}

func TestProviderConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cfg, err := ProviderConfigFromEnv(env(nil))
	if err != nil || cfg.Name != "" || cfg.Timeout != 0 {
		t.Fatalf("empty env: %+v %v", cfg, err)
	}
	cfg, err = ProviderConfigFromEnv(env(map[string]string{
		"AI_PROVIDER": " OpenAI ", "AI_MODEL": "llama3.1:8b", "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1",
		"OPENAI_API_KEY": "k", "AI_TIMEOUT": "12s",
	}))
	want := ProviderConfig{Name: "openai", Model: "llama3.1:8b", OpenAIBaseURL: "http://127.0.0.1:11434/v1", OpenAIAPIKey: "k", Timeout: 12 * time.Second}
	if err != nil || !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v %v", cfg, err)
	}
	if cfg, err := ProviderConfigFromEnv(env(map[string]string{"AI_TIMEOUT": "30"})); err != nil || cfg.Timeout != 30*time.Second {
		t.Errorf("whole seconds: %+v %v", cfg, err)
	}
	for name, m := range map[string]map[string]string{
		"unknown provider":   {"AI_PROVIDER": "oracle"},
		"bedrock no model":   {"AI_PROVIDER": "bedrock"},
		"openai no base URL": {"AI_PROVIDER": "openai"},
		"openai bad URL":     {"AI_PROVIDER": "openai", "OPENAI_BASE_URL": "localhost:8080"},
		"bad timeout":        {"AI_TIMEOUT": "soon"},
		"negative timeout":   {"AI_TIMEOUT": "-5s"},
	} {
		if _, err := ProviderConfigFromEnv(env(m)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNewProviderDefaultsToRules(t *testing.T) {
	p, err := NewProvider(context.Background(), ProviderConfig{})
	if err != nil || p.Name() != ProviderRules {
		t.Fatalf("%v %v", p, err)
	}
	if _, err := NewProvider(context.Background(), ProviderConfig{Name: "bedrock"}); err == nil {
		t.Error("bedrock without a model")
	}
}

func TestParseDate(t *testing.T) {
	cases := []struct {
		in, country string
		want        string
		basis       float64
	}{
		{"22/11/2026", "", "2026-11-22", basisFormat},
		{"11/22/2026", "", "2026-11-22", basisFormat},
		{"22.11.2026", "", "2026-11-22", basisFormat},
		{"2026/11/22", "", "2026-11-22", basisFormat},
		{"2026-11-22T10:00:00Z", "", "2026-11-22", basisFormat},
		{"22 Nov 2026", "", "2026-11-22", basisFormat},
		{"November 22, 2026", "", "2026-11-22", basisFormat},
		{"03/04/2026", "US", "2026-03-04", basisLocale},
		{"03/04/2026", "DE", "2026-04-03", basisLocale},
		{"05/05/2026", "", "2026-05-05", basisFormat},
	}
	for _, c := range cases {
		d, basis, ok := parseDate(c.in, c.country, true)
		if !ok || d.Format("2006-01-02") != c.want || basis != c.basis {
			t.Errorf("parseDate(%q, %q) = %v %v %v, want %s %v", c.in, c.country, d, basis, ok, c.want, c.basis)
		}
	}
	for _, in := range []string{"03/04/2026", "31/02/2026", "2026-13-05", "soon", "22/11/26"} {
		if _, _, ok := parseDate(in, "", true); ok {
			t.Errorf("parseDate(%q) read a date", in)
		}
	}
}

func TestToE164(t *testing.T) {
	cases := map[[2]string]string{
		{"030 1234567", "DE"}:         "+49301234567",
		{"+49 (0)30 1234567", ""}:     "+49301234567",
		{"0049 30 1234567", ""}:       "+49301234567",
		{"(415) 555-0132", "US"}:      "+14155550132",
		{"1-415-555-0132", "US"}:      "+14155550132",
		{"020 7946 0958", "GB"}:       "+442079460958",
		{"06 12 34 56 78", "FR"}:      "+33612345678",
		{"02 1234 5678", "IT"}:        "+390212345678",
		{"+1 604 555 0199", "CA"}:     "+16045550199",
		{"0171 2345678", "DE"}:        "+491712345678",
		{"555-0132", "US"}:            "",
		{"030 1234567", ""}:           "",
		{"+1 555 0100 ext. 12", "US"}: "",
	}
	for in, want := range cases {
		got, ok := toE164(in[0], in[1])
		if got != want || ok != (want != "") {
			t.Errorf("toE164(%q, %q) = %q, %v; want %q", in[0], in[1], got, ok, want)
		}
	}
}

func TestParseNumber(t *testing.T) {
	cases := []struct {
		in, country string
		want        float64
		ok          bool
	}{
		{"$1,299.00", "", 1299, true},
		{"1.299,50", "", 1299.5, true},
		{"12,50", "", 12.5, true},
		{"1 299,50 €", "", 1299.5, true},
		{"1'299.50", "", 1299.5, true},
		{"(42.10)", "", -42.1, true},
		{"1,299", "US", 1299, true},
		{"1,299", "DE", 1.299, true},
		{"1,299", "", 0, false},
		{"1.234.567", "", 1234567, true},
		{"abc", "", 0, false},
		{"1-2", "", 0, false},
	}
	for _, c := range cases {
		n, _, ok := parseNumber(c.in, c.country, false)
		got, err := n.Float64()
		if ok != c.ok || (ok && (err != nil || math.Abs(got-c.want) > 1e-9)) {
			t.Errorf("parseNumber(%q, %q) = %v, %v; want %v, %v", c.in, c.country, got, ok, c.want, c.ok)
		}
	}
}

func TestCleanEmail(t *testing.T) {
	for in, want := range map[string]string{
		" Jane.Doe @Example.com ":       "jane.doe@example.com",
		"mailto:AP@Kaufhaus-Nord.DE":    "ap@kaufhaus-nord.de",
		"<ops@northwind.example>":       "ops@northwind.example",
		"mike@pearson-hardman.com.":     "mike@pearson-hardman.com",
		"max@gmx,de":                    "max@gmx.de",
		"john.smith@@example.com":       "john.smith@example.com",
		"no-at-sign.example.com":        "",
		"two@ats@example.com":           "",
		"x@localhost":                   "",
		"valid.already@example.org":     "valid.already@example.org",
		"o'brien+orders@example.co.uk ": "o'brien+orders@example.co.uk",
	} {
		got, ok := cleanEmail(in)
		if got != want || ok != (want != "") {
			t.Errorf("cleanEmail(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestLookups(t *testing.T) {
	for in, want := range map[string]string{
		"Deutschland": "DE", "germany": "DE", "DEU": "DE", "de": "DE", "Österreich": "AT", "osterreich": "AT",
		"United States of America": "US", "U.S.A.": "US", "españa": "ES", "Holland": "NL", "UK": "GB", "日本": "JP",
		"Türkiye": "TR", "Czechia": "CZ",
	} {
		c, ok := lookupCountry(in)
		if !ok || c.alpha2 != want {
			t.Errorf("lookupCountry(%q) = %v, %v; want %s", in, c, ok, want)
		}
	}
	if len(countries) < 60 {
		t.Errorf("%d countries, want at least 60", len(countries))
	}
	for in, want := range map[[2]string]string{
		{"California", "US"}: "CA", {"texas", ""}: "TX", {"Ontario", "CA"}: "ON", {"Québec", ""}: "QC", {"ny", "US"}: "NY",
	} {
		if got, ok := lookupRegion(in[0], in[1]); !ok || got != want {
			t.Errorf("lookupRegion(%q, %q) = %q, %v; want %s", in[0], in[1], got, ok, want)
		}
	}
	if _, ok := lookupRegion("Bavaria", "DE"); ok {
		t.Error("a German state resolved")
	}
	for in, want := range map[[2]string]string{
		{"€", ""}: "EUR", {"Euro", ""}: "EUR", {"eur", ""}: "EUR", {"£", ""}: "GBP", {"$", "CA"}: "CAD",
		{"$", ""}: "USD", {"kr", "SE"}: "SEK", {"zł", ""}: "PLN", {"¥", "CN"}: "CNY",
	} {
		if got, _, ok := lookupCurrency(in[0], in[1]); !ok || got != want {
			t.Errorf("lookupCurrency(%q, %q) = %q, %v; want %s", in[0], in[1], got, ok, want)
		}
	}
	if _, _, ok := lookupCurrency("kr", ""); ok {
		t.Error("kr resolved without a country")
	}
}

func TestFixPostal(t *testing.T) {
	for in, want := range map[[3]string]string{
		{"2139", "US", "MA"}:      "02139",
		{"2139", "US", ""}:        "",
		{"9021", "US", "CA"}:      "",
		{"021391234", "US", "MA"}: "02139-1234",
		{"m5x1a9", "CA", "ON"}:    "M5X 1A9",
		{"sw1a1aa", "GB", ""}:     "SW1A 1AA",
		{"1011ab", "NL", ""}:      "1011 AB",
		{"10115", "DE", ""}:       "",
	} {
		got, _, ok := fixPostal(in[0], in[1], in[2])
		if got != want || ok != (want != "") {
			t.Errorf("fixPostal(%v) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestClassifyUsesHTTPStatusOnlyWhereNamed(t *testing.T) {
	for _, c := range []struct {
		code, msg string
		want      ErrorClass
	}{
		{"429", "", ClassRateLimit},
		{"HTTP_503", "", ClassIntermittent},
		{"", "status code 413 from gateway", ClassTooLarge},
		{"INVALID_FLD_VALUE", "Invalid Field Value 401 Main St for the following field: addr1", ClassValue},
		{"", "", ClassValue},
	} {
		if got := classify(scope{}, c.code, c.msg).class; got != c.want {
			t.Errorf("classify(%q, %q) = %s, want %s", c.code, c.msg, got, c.want)
		}
	}
	if c := classify(scope{}, "", "something odd happened"); c.certainty > 0.3 {
		t.Errorf("unrecognised error classified with certainty %v", c.certainty)
	}
}

func TestRulesScoreOtherDiagnoses(t *testing.T) {
	req := DiagnosisRequest{RecordType: "salesOrder", ErrorCode: "INVALID_FLD_VALUE",
		Message: "Invalid Field Value Deutschland for the following field: shipcountry",
		Payload: json.RawMessage(`{"shipcountry":"Deutschland"}`)}
	p := &rulesProvider{}
	own, _, _ := p.suggest(context.Background(), nil, req)
	score := func(d Diagnosis) float64 { c, _, _ := p.assessQuality(context.Background(), nil, req, d); return c }
	ownScore := score(own)
	wrongValue := own
	wrongValue.Fix = []FieldChange{{Path: "shipcountry", After: "DEU"}}
	wrongClass := own
	wrongClass.Class = ClassReference
	noFix := own
	noFix.Fix = nil
	if !(ownScore > score(noFix)) || !(ownScore > score(wrongValue)) || !(ownScore > score(wrongClass)) {
		t.Errorf("own %.2f, no fix %.2f, wrong value %.2f, wrong class %.2f", ownScore, score(noFix), score(wrongValue), score(wrongClass))
	}
	if ownScore < 0.85 {
		t.Errorf("a table-determined fix scores %.2f", ownScore)
	}
}

// TestLiteralPrefilterIsSound checks on every message of the corpora that the literal
// prefilter never skips a pattern that matches.
func TestLiteralPrefilterIsSound(t *testing.T) {
	var all []fastRE
	for _, r := range classRules {
		all = append(all, r.re)
	}
	all = append(all, fieldCueREs...)
	all = append(all, valueCues...)
	all = append(all, maxLenREs...)
	all = append(all, missingREs...)
	all = append(all, existingIDREs...)
	all = append(all, jacksonChainRE, allowedRE)
	for _, c := range namedCues {
		all = append(all, c.re)
	}
	filtered := 0
	for _, r := range all {
		if r.lits != nil {
			filtered++
		}
	}
	if filtered*10 < len(all)*8 {
		t.Errorf("only %d of %d patterns have a prefilter", filtered, len(all))
	}
	var texts []string
	for _, f := range []string{"testdata/diagnoser_corpus.json", "testdata/diagnoser_holdout.json", "testdata/diagnoser_holdout2.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Cases []struct{ Request DiagnosisRequest } `json:"cases"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		for _, k := range c.Cases {
			texts = append(texts, k.Request.Message, strings.ToLower(k.Request.ErrorCode+" "+k.Request.Message))
		}
	}
	for _, text := range texts {
		lower := strings.ToLower(text)
		for _, r := range all {
			if r.re.MatchString(text) && !r.mayMatch(lower) {
				t.Errorf("prefilter %q rejects %q, which %s matches", r.lits, text, r.re)
			}
		}
	}
	if got := requiredLiterals(`(?i)did you mean\s*:?\s*(x|y)`); len(got) != 1 || got[0] != "did you mean" {
		t.Errorf("requiredLiterals = %q", got)
	}
	if got := requiredLiterals(`a?b*`); got != nil {
		t.Errorf("requiredLiterals of an optional pattern = %q", got)
	}
}
