package dlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp/dlpcorpus"
)

func mustScan(t *testing.T, s *Scanner, dest Destination, doc string) Result {
	t.Helper()
	r, err := s.ScanJSON(dest, []byte(doc))
	if err != nil {
		t.Fatalf("ScanJSON(%s): %v", dest, err)
	}
	return r
}

func TestAIPromptAnonymizesWithConsistentPlaceholders(t *testing.T) {
	t.Parallel()
	doc := dlpcorpus.ExpandJSON(`{
		"customer": {"email": "Jane.Doe@Example.com", "altEmail": "ops@acme.io", "phone": "+1 415 555 2671"},
		"billTo": {"email": "jane.doe@example.com", "card": "4111 1111 1111 1111"},
		"payments": [{"pan": 4111111111111111}, {"pan": "5555555555554444"}],
		"note": "jane.doe@example.com asked to charge 4111-1111-1111-1111 again; token {{GH_TOKEN}}",
		"qty": 3
	}`)
	s := NewScanner()
	r := mustScan(t, s, AIPrompt, doc)
	out := string(r.Output)
	for _, secret := range []string{"Jane.Doe@Example.com", "jane.doe@example.com", "ops@acme.io",
		"555 2671", "4111", "5555555555554444", dlpcorpus.Fixtures["GH_TOKEN"]} {
		if strings.Contains(out, secret) {
			t.Errorf("output still contains %q:\n%s", secret, out)
		}
	}
	var got struct {
		Customer struct{ Email, AltEmail, Phone string }
		BillTo   struct{ Email, Card string }
		Payments []struct{ Pan any }
		Note     string
		Qty      int
	}
	if err := json.Unmarshal(r.Output, &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	checks := []struct{ name, got, want string }{
		{"same email, other case", got.BillTo.Email, got.Customer.Email},
		{"first email", got.Customer.Email, "[EMAIL_1]"},
		{"second email", got.Customer.AltEmail, "[EMAIL_2]"},
		{"phone", got.Customer.Phone, "[PHONE_1]"},
		{"card with spaces", got.BillTo.Card, "[CARD_NUMBER_1]"},
		{"same card as a number", fmt.Sprint(got.Payments[0].Pan), "[CARD_NUMBER_1]"},
		{"other card", fmt.Sprint(got.Payments[1].Pan), "[CARD_NUMBER_2]"},
		{"free text", got.Note, "[EMAIL_1] asked to charge [CARD_NUMBER_1] again; token [API_KEY_1]"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
	if got.Qty != 3 {
		t.Errorf("qty changed to %d", got.Qty)
	}
	if r.Blocked || r.Err() != nil {
		t.Errorf("AIPrompt must never block: %+v", r)
	}
}

func TestRecordRedactsEverything(t *testing.T) {
	t.Parallel()
	doc := dlpcorpus.ExpandJSON(`{"actor":"jane.doe@example.com","details":{"request":"Authorization: Bearer {{JWT}}","ssn":"123-45-6789","iban":"DE89370400440532013000"}}`)
	r := mustScan(t, NewScanner(), Record, doc)
	want := `{"actor":"[REDACTED:EMAIL]","details":{"request":"Authorization: Bearer [REDACTED:JWT]","ssn":"[REDACTED:SSN]","iban":"[REDACTED:IBAN]"}}`
	if string(r.Output) != want {
		t.Errorf("output\n got %s\nwant %s", r.Output, want)
	}
	if got := r.Counts(); !reflect.DeepEqual(got, map[string]int{"email": 1, "jwt": 1, "ssn": 1, "iban": 1}) {
		t.Errorf("counts = %v", got)
	}
}

func TestConnectorWriteBlocksSecretsAndCardData(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, c := range []struct {
		name, doc, typ string
	}{
		{"card number", `{"customer":{"paymentCard":"4111 1111 1111 1111"}}`, TypeCardNumber},
		{"card number as number", `{"pan":4111111111111111}`, TypeCardNumber},
		{"aws secret", `{"config":{"aws_secret_access_key":"{{AWS_SECRET}}"}}`, TypeAWSSecretAccessKey},
		{"aws key id", `{"note":"key {{AWS_KEY_ID}}"}`, TypeAWSAccessKeyID},
		{"private key", `{"sftpKey":"{{PEM_RSA}}"}`, TypePrivateKey},
		{"jwt", `{"comment":"use {{JWT}}"}`, TypeJWT},
		{"api key", `{"comment":"{{STRIPE_LIVE}}"}`, TypeAPIKey},
		{"url password", `{"endpoint":"sftp://edi:Pa55word@edi.example.com"}`, TypeURLPassword},
		{"password field", `{"password":"hunter22"}`, TypePasswordField},
		{"ssn", `{"vendor":{"ssn":"536-22-1234"}}`, TypeSSN},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := mustScan(t, s, ConnectorWrite, dlpcorpus.ExpandJSON(c.doc))
			if !r.Blocked {
				t.Fatalf("not blocked: %+v", r)
			}
			if r.Output != nil {
				t.Errorf("a blocked write still has output")
			}
			err := r.Err()
			if !errors.Is(err, ErrBlocked) {
				t.Errorf("Err() = %v, want ErrBlocked", err)
			}
			if !strings.Contains(r.Reason, c.typ) {
				t.Errorf("reason %q does not name %s", r.Reason, c.typ)
			}
			for _, secret := range dlpcorpus.Fixtures {
				if strings.Contains(r.Reason, secret) || strings.Contains(err.Error(), secret) {
					t.Errorf("reason leaks a value: %q", r.Reason)
				}
			}
		})
	}
}

func TestConnectorWritePassesContactData(t *testing.T) {
	t.Parallel()
	doc := `{"customer":{"name":"Jane Doe","email":"jane.doe@example.com","phone":"+1 (415) 555-2671",
		"address":{"street":"500 Howard St","city":"San Francisco","postalCode":"94105","country":"US"},
		"bank":{"iban":"DE89 3704 0044 0532 0130 00"}}}`
	r := mustScan(t, NewScanner(), ConnectorWrite, doc)
	if r.Blocked || r.Err() != nil {
		t.Fatalf("contact data blocked: %s", r.Reason)
	}
	if !bytes.Equal(r.Output, []byte(doc)) {
		t.Errorf("output changed:\n%s", r.Output)
	}
	if got := r.Counts(); !reflect.DeepEqual(got, map[string]int{"email": 1, "phone": 1, "iban": 1}) {
		t.Errorf("findings are still reported for the audit, got %v", got)
	}
}

// TestOutputsKeepStructureAndRescanClean runs the whole corpus through the rewriting
// policies: every output is valid JSON of the input's shape, holds none of the values
// found, and scanning it again finds nothing.
func TestOutputsKeepStructureAndRescanClean(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, dest := range []Destination{AIPrompt, Record} {
		for _, c := range dlpcorpus.Cases {
			r, values := scanCase(t, s, c, dest)
			if c.JSON {
				if !json.Valid(r.Output) {
					t.Errorf("%s/%s: output is not JSON: %s", dest, c.Name, r.Output)
					continue
				}
				if err := sameShape([]byte(c.Doc()), r.Output); err != nil {
					t.Errorf("%s/%s: %v", dest, c.Name, err)
				}
			}
			for i, v := range values {
				if len(v) < 4 {
					continue
				}
				// A value the document spells elsewhere too (a default password is a word of
				// its name: "admin" for admin_password) is looked for where it was found.
				out := string(r.Output)
				if c.JSON && strings.Count(c.Doc(), v) > 1 {
					var err error
					if out, err = dlpcorpus.ValueAt(r.Output, r.Findings[i].Path); err != nil {
						t.Errorf("%s/%s: %v", dest, c.Name, err)
					}
				}
				if strings.Contains(out, v) {
					t.Errorf("%s/%s: output still contains %q", dest, c.Name, v)
				}
			}
			again, _ := scanCase(t, s, dlpcorpus.Case{Name: c.Name, JSON: c.JSON, Input: string(r.Output)}, dest)
			if len(again.Findings) > 0 {
				t.Errorf("%s/%s: rescanning the output finds %+v in %s", dest, c.Name, again.Findings, r.Output)
			}
			if !bytes.Equal(again.Output, r.Output) {
				t.Errorf("%s/%s: rescanning changed the output", dest, c.Name)
			}
		}
	}
}

// sameShape reports how two documents differ in shape: object keys, array lengths, and
// value kinds (a number may become a string placeholder).
func sameShape(a, b []byte) error {
	var x, y any
	for _, d := range []struct {
		doc []byte
		v   *any
	}{{a, &x}, {b, &y}} {
		dec := json.NewDecoder(bytes.NewReader(d.doc))
		dec.UseNumber() // 1E700 is valid JSON but no float64
		if err := dec.Decode(d.v); err != nil {
			return err
		}
	}
	return shapeDiff("$", x, y)
}

func shapeDiff(path string, x, y any) error {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Errorf("%s: object became %T with %d members", path, y, len(yv))
		}
		for k, v := range xv {
			w, ok := yv[k]
			if !ok {
				// A key holding a finding is rewritten; match it by elimination.
				continue
			}
			if err := shapeDiff(path+"."+k, v, w); err != nil {
				return err
			}
		}
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Errorf("%s: array of %d became %T", path, len(xv), y)
		}
		for i := range xv {
			if err := shapeDiff(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i]); err != nil {
				return err
			}
		}
	case json.Number:
		switch y.(type) {
		case json.Number, string:
		default:
			return fmt.Errorf("%s: number became %T", path, y)
		}
	default:
		if reflect.TypeOf(x) != reflect.TypeOf(y) {
			return fmt.Errorf("%s: %T became %T", path, x, y)
		}
	}
	return nil
}

func TestFindingsInObjectKeys(t *testing.T) {
	t.Parallel()
	doc := `{"cardsByNumber":{"4111111111111111":{"holder":"jane.doe@example.com"}},"plain":{"ok":1}}`
	s := NewScanner()
	for _, c := range []struct {
		dest     Destination
		keyPath  string
		mailPath string
		output   string
	}{
		{AIPrompt, `$.cardsByNumber["[CARD_NUMBER_1]"]`, `$.cardsByNumber["[CARD_NUMBER_1]"].holder`,
			`{"cardsByNumber":{"[CARD_NUMBER_1]":{"holder":"[EMAIL_1]"}},"plain":{"ok":1}}`},
		{Record, `$.cardsByNumber["[REDACTED:CARD_NUMBER]"]`, `$.cardsByNumber["[REDACTED:CARD_NUMBER]"].holder`,
			`{"cardsByNumber":{"[REDACTED:CARD_NUMBER]":{"holder":"[REDACTED:EMAIL]"}},"plain":{"ok":1}}`},
		// The write is blocked, and the path sent to the audit still hides the card.
		{ConnectorWrite, `$.cardsByNumber["[REDACTED:CARD_NUMBER]"]`, `$.cardsByNumber["[REDACTED:CARD_NUMBER]"].holder`, ""},
	} {
		r := mustScan(t, s, c.dest, doc)
		if len(r.Findings) != 2 {
			t.Fatalf("%s: findings %+v", c.dest, r.Findings)
		}
		key, mail := r.Findings[0], r.Findings[1]
		if !key.Key || key.Type != TypeCardNumber || key.Path != c.keyPath || key.Start != 0 || key.End != 16 {
			t.Errorf("%s: key finding %+v", c.dest, key)
		}
		if mail.Key || mail.Type != TypeEmail || mail.Path != c.mailPath {
			t.Errorf("%s: value finding %+v", c.dest, mail)
		}
		if string(r.Output) != c.output {
			t.Errorf("%s: output %s, want %s", c.dest, r.Output, c.output)
		}
	}
}

func TestOffsetsWithinEscapedStrings(t *testing.T) {
	t.Parallel()
	// The value decodes to `é "x" jane@example.com`; offsets count decoded bytes.
	doc := `{"note":"\u00e9 \"x\" jane@example.com","k\u0065y":"v"}`
	r := mustScan(t, NewScanner(), AIPrompt, doc)
	if len(r.Findings) != 1 {
		t.Fatalf("findings %+v", r.Findings)
	}
	f := r.Findings[0]
	v, _ := dlpcorpus.ValueAt([]byte(doc), f.Path)
	if got := v[f.Start:f.End]; got != "jane@example.com" {
		t.Errorf("[%d,%d) of %q is %q", f.Start, f.End, v, got)
	}
	if want := `{"note":"é \"x\" [EMAIL_1]","k\u0065y":"v"}`; string(r.Output) != want {
		t.Errorf("output %s, want %s", r.Output, want)
	}
}

func TestScanText(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	text := "Sync failed for jane.doe@example.com: card 4111111111111111 declined"
	for _, c := range []struct {
		dest    Destination
		output  string
		blocked bool
	}{
		{AIPrompt, "Sync failed for [EMAIL_1]: card [CARD_NUMBER_1] declined", false},
		{Record, "Sync failed for [REDACTED:EMAIL]: card [REDACTED:CARD_NUMBER] declined", false},
		{ConnectorWrite, "", true},
	} {
		r, err := s.ScanText(c.dest, text)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Output) != c.output || r.Blocked != c.blocked {
			t.Errorf("%s: output %q blocked %v", c.dest, r.Output, r.Blocked)
		}
		for _, f := range r.Findings {
			if f.Path != "$" {
				t.Errorf("%s: path %q", c.dest, f.Path)
			}
		}
	}
	r, err := s.ScanText(Record, "nothing to see")
	if err != nil || string(r.Output) != "nothing to see" || len(r.Findings) != 0 {
		t.Errorf("clean text: %+v, %v", r, err)
	}
}

func TestInvalidJSONFailsClosed(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, doc := range []string{
		``, ` `, `{`, `}`, `{"a":}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{a:1}`, `"unterminated`,
		`{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"tab\there\"}", `01`, `1.`, `.5`, `-`, `1e`, `tru`,
		`nul`, `{"a":1}{"b":2}`, `[1 2]`, `{"a":[}`, `NaN`, `{"password":"hunter22"`,
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	} {
		for _, dest := range []Destination{AIPrompt, ConnectorWrite, Record} {
			r, err := s.ScanJSON(dest, []byte(doc))
			if !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("%s %q: err = %v, want ErrInvalidJSON", dest, doc, err)
			}
			if r.Output != nil {
				t.Errorf("%s %q: output %q on error", dest, doc, r.Output)
			}
		}
		if json.Valid([]byte(doc)) {
			t.Errorf("%q is valid for encoding/json", doc)
		}
	}
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := s.ScanJSON(Record, []byte(deep)); err != nil || !json.Valid([]byte(deep)) {
		t.Errorf("nesting at the limit: %v", err)
	}
	if _, err := s.ScanJSON("email", []byte(`{}`)); err == nil {
		t.Errorf("an unknown destination must be an error")
	}
}

func TestValidJSONEdgeCases(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, doc := range []string{
		`0`, `-0.5e+10`, `"x"`, `null`, `true`, ` [ ] `, `{ }`, `{"":""}`, `{"a":{"a":{"a":[[],{}]}}}`,
		`"\ud83d\ude00 \ud800 \/"`, "\"\xff\xfe raw bytes\"", `{"a":1,"a":2}`, "\t{\"x\"\r\n:\n1}\n",
	} {
		r, err := s.ScanJSON(Record, []byte(doc))
		if err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		if !bytes.Equal(r.Output, []byte(doc)) {
			t.Errorf("%q: output %q", doc, r.Output)
		}
	}
}

func TestConcurrentScans(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range dlpcorpus.Cases {
				if !c.JSON {
					continue
				}
				r1, _ := s.ScanJSON(AIPrompt, []byte(c.Doc()))
				r2, _ := s.ScanJSON(AIPrompt, []byte(c.Doc()))
				if !bytes.Equal(r1.Output, r2.Output) {
					t.Errorf("%s: scans differ", c.Name)
				}
			}
		}()
	}
	wg.Wait()
}

func TestFieldNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key    string
		secret bool
	}{
		{"password", true}, {"Password", true}, {"db_password", true}, {"smtpPassword2", true},
		{"passwd", true}, {"secret", true}, {"client_secret", true}, {"clientSecret", true},
		{"api_key", true}, {"apiKey", true}, {"APIKey", true}, {"apikey", true}, {"x-api-key", true},
		{"private_key", true}, {"privateKey", true}, {"aws_secret_access_key", true},
		{"accessToken", true}, {"refresh_token", true}, {"Authorization", true}, {"cvv", true},
		{"idempotencyKey", false}, {"externalKey", false}, {"tokenCount", false}, {"keyCode", false},
		{"primaryKey", false}, {"key", false}, {"token", false}, {"nextToken", false},
		{"publicKey", false}, {"sortKey", false}, {"secretQuestion", false}, {"passwordExpiresAt", false},
		{"private_key_id", false}, {"keyId", false}, {"tokenType", false}, {"pass", false},
		// A word that starts with digits keeps the capital after them: a brand, not a password.
		{"1Password", false}, {"1password", false}, {"db1Password", true}, {"custentity_2ndPassword", true},
	} {
		if got := classifyKey(c.key)&ctxSecret != 0; got != c.secret {
			t.Errorf("classifyKey(%q) secret = %v, want %v", c.key, got, c.secret)
		}
	}
	for _, c := range []struct {
		key   string
		phone bool
	}{
		{"phone", true}, {"phones", true}, {"contactPhone", true}, {"MobilePhone", true},
		{"phoneNumber", true}, {"fax_no", true}, {"tel", true}, {"phone_2", true}, {"homephone", true},
		{"mobile", true}, {"phoneVerified", false}, {"mobileAppBuild", false}, {"hotel", false},
		{"telemetry", false}, {"cellId", false},
	} {
		if got := classifyKey(c.key)&ctxPhone != 0; got != c.phone {
			t.Errorf("classifyKey(%q) phone = %v, want %v", c.key, got, c.phone)
		}
	}
}
