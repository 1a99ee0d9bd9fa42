package aitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
)

// Canary is a sensitive string a test plants in a request, and the finding type the
// scanner reports it as.
type Canary struct {
	Value string
	Type  string // upper case: "CARD_NUMBER", "AWS_SECRET_KEY", "EMAIL"
}

// Canaries are realistic secrets and personal data of the kinds the DLP detectors find,
// for tests that prove none reaches a provider, a trace, a cost record or the audit log.
var Canaries = []Canary{
	{"4111 1111 1111 1111", "CARD_NUMBER"},
	{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_KEY"},
	{"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----", "PRIVATE_KEY"},
	{"123-45-6789", "US_SSN"},
	{"jane.doe@example.com", "EMAIL"},
	{"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "JWT"},
}

// Scanner is a fake ai.PromptScanner: it replaces every occurrence of its canaries in
// the document's string values (and keys) with typed placeholders "[TYPE_n]", n counting
// distinct values per type, like the DLP adapter does. It records every document it was
// given.
type Scanner struct {
	mu       sync.Mutex
	canaries []Canary
	err      error
	docs     [][]byte
}

var _ ai.PromptScanner = (*Scanner)(nil)

// NewScanner returns a scanner that finds the given canaries (none: it finds nothing).
func NewScanner(canaries ...Canary) *Scanner {
	c := append([]Canary(nil), canaries...)
	// Longer canaries first, so that one containing another is replaced whole.
	sort.SliceStable(c, func(i, j int) bool { return len(c[i].Value) > len(c[j].Value) })
	return &Scanner{canaries: c}
}

// FailWith makes every later scan fail with err (nil: succeed again).
func (s *Scanner) FailWith(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Docs returns the documents scanned so far.
func (s *Scanner) Docs() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.docs))
	for i, d := range s.docs {
		out[i] = bytes.Clone(d)
	}
	return out
}

// RedactText implements ai.PromptScanner with DLP's record policy, as production does.
func (s *Scanner) RedactText(_ context.Context, text string) (string, error) {
	return dlp.NewScanner().RedactString(dlp.Record, text)
}

// Anonymize implements ai.PromptScanner.
func (s *Scanner) Anonymize(_ context.Context, doc []byte) ([]byte, map[string]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs = append(s.docs, bytes.Clone(doc))
	if s.err != nil {
		return nil, nil, s.err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, errors.New("aitest scanner: document is not a JSON object")
	}
	counts := map[string]int{}
	ids := map[string]map[string]int{} // type -> value -> ordinal
	replace := func(str string) string {
		for _, c := range s.canaries {
			if c.Value == "" || !strings.Contains(str, c.Value) {
				continue
			}
			n := strings.Count(str, c.Value)
			counts[c.Type] += n
			if ids[c.Type] == nil {
				ids[c.Type] = map[string]int{}
			}
			ord, ok := ids[c.Type][c.Value]
			if !ok {
				ord = len(ids[c.Type]) + 1
				ids[c.Type][c.Value] = ord
			}
			str = strings.ReplaceAll(str, c.Value, fmt.Sprintf("[%s_%d]", c.Type, ord))
		}
		return str
	}
	out := walk(v, replace)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), counts, nil
}

func walk(v any, replace func(string) string) any {
	switch v := v.(type) {
	case string:
		return replace(v)
	case map[string]any:
		// Keys in order, so that placeholder numbers do not depend on map order.
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := make(map[string]any, len(v))
		for _, k := range keys {
			m[replace(k)] = walk(v[k], replace)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = walk(e, replace)
		}
		return out
	}
	return v
}

func copyIdentityRoles(id identity.Identity) identity.Identity {
	id.Roles = append([]string(nil), id.Roles...)
	return id
}
