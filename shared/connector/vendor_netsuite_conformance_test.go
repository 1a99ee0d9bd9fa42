package connector_test

// NetSuite held to what Oracle publishes, kept in vendors/netsuite (README there): every
// request the connector sends is one of the documented ones, the fake answers in the
// documented shapes, and every documented error body is read as Oracle describes it.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// nsFixtures are NetSuite's fixtures; each cites Oracle's own page.
func nsFixtures(t testing.TB) map[string]fixture {
	t.Helper()
	all := loadFixtures(t, "netsuite")
	for name, f := range all {
		if !strings.HasPrefix(f.Source, "https://docs.oracle.com/") {
			t.Fatalf("%s: a NetSuite fixture cites Oracle's page, not %s", name, f.Source)
		}
	}
	return all
}

// nsExchange is one request that reached the fake.
type nsExchange struct {
	method, path, query string
	header              http.Header
	body                []byte
}

type nsRecorder struct {
	mu   sync.Mutex
	seen []nsExchange
	next http.Handler
}

func (rc *nsRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.seen = append(rc.seen, nsExchange{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), body})
	rc.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rc.next.ServeHTTP(w, r)
}

// nsTemplate matches a fixture's path (and query): {name} stands for one value.
func nsTemplate(tpl string) *regexp.Regexp {
	var b strings.Builder
	for _, part := range regexp.MustCompile(`\{[^}]+\}`).Split(tpl, -1) {
		if b.Len() > 0 {
			b.WriteString(`[^/?&=]+`)
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	return regexp.MustCompile("^" + strings.TrimPrefix(b.String(), "") + "$")
}

// documented finds the request fixture a request is an instance of.
func (e nsExchange) documented(all map[string]fixture) (fixture, bool) {
	target := e.path
	if e.query != "" {
		target += "?" + e.query
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range all {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		f := all[n]
		if strings.HasPrefix(n, "request-") && f.Request.Method == e.method && nsTemplate(f.Request.Path).MatchString(target) {
			return f, true
		}
	}
	return fixture{}, false
}

var nsHeaderForms = map[string]*regexp.Regexp{
	"Authorization": regexp.MustCompile(`^Bearer \S+$`),
	"Content-Type":  regexp.MustCompile(`^application/json`),
}

// checkNetSuiteRequest holds one request to its fixture: the headers in their documented
// form, a JSON object body where the fixture has one, a sublist sent only with replace=,
// and the token request's form and client assertion as Oracle describes them.
func checkNetSuiteRequest(t testing.TB, e nsExchange, f fixture, tokenURL string) {
	t.Helper()
	for k, v := range f.Request.Headers {
		got := e.header.Get(k)
		if k == "Authorization" && got == "" && tokenURL == "" {
			// A test's client without a credential; a configured one is checked by
			// TestNetSuiteRequestsAreTheDocumentedOnes.
			continue
		}
		re, ok := nsHeaderForms[k]
		if k == "Content-Type" {
			ok = strings.HasPrefix(v, "application/json")
		}
		if ok && !re.MatchString(got) || !ok && got != v {
			t.Errorf("%s %s: %s = %q, documented %q (%s)", e.method, e.path, k, got, v, f.Source)
		}
	}
	if strings.HasPrefix(f.name, "request-token") {
		checkAssertionForm(t, e, tokenURL)
		return
	}
	if len(f.Request.Body) == 0 || f.Request.Body[0] != '{' {
		return
	}
	var obj map[string]any
	if json.Unmarshal(e.body, &obj) != nil {
		t.Errorf("%s %s: the body is not a JSON object (%s)", e.method, e.path, f.Source)
	}
	replace := strings.Split(mustQuery(t, e.query).Get("replace"), ",")
	for name, v := range obj {
		if m, ok := v.(map[string]any); ok && m["items"] != nil && e.method == http.MethodPatch && !slices.Contains(replace, name) {
			t.Errorf("PATCH %s sends sublist %s without replace=%s: NetSuite adds the lines again (%s)", e.path, name, name, f.Source)
		}
	}
}

func mustQuery(t testing.TB, raw string) url.Values {
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("query %q: %v", raw, err)
	}
	return q
}

func checkAssertionForm(t testing.TB, e nsExchange, tokenURL string) {
	t.Helper()
	form := mustQuery(t, string(e.body))
	if form.Get("grant_type") != "client_credentials" || form.Get("client_assertion_type") != connector.ClientAssertionType ||
		form.Has("client_secret") || form.Has("client_id") {
		t.Fatalf("token request form %v is not Oracle's M2M request", form)
	}
	parts := strings.Split(form.Get("client_assertion"), ".")
	if len(parts) != 3 {
		t.Fatalf("client_assertion is not a JWS")
	}
	var head, claims map[string]any
	for i, into := range []*map[string]any{&head, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil || json.Unmarshal(raw, into) != nil {
			t.Fatalf("client_assertion part %d is not base64url JSON", i)
		}
	}
	alg, _ := head["alg"].(string)
	if head["typ"] != "JWT" || !slices.Contains([]string{"PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}, alg) || head["kid"] == nil {
		t.Errorf("assertion header %v: want typ JWT, alg PS*/ES*, kid (section_162790605110.html)", head)
	}
	iat, _ := claims["iat"].(float64)
	exp, _ := claims["exp"].(float64)
	if claims["iss"] == nil || tokenURL != "" && claims["aud"] != tokenURL || claims["scope"] == nil || exp <= iat || exp-iat >= 3600 {
		t.Errorf("assertion claims %v: want iss, scope, aud %s, exp less than 60 minutes after iat", claims, tokenURL)
	}
}

// startNetSuiteM2M serves a recorded NetSuite fake with the M2M token endpoint and returns
// a client logging in there.
func startNetSuiteM2M(t *testing.T) (*fakesystem.Server, *connector.Client, *nsRecorder, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	fake := fakesystem.New(connector.SystemHostERP)
	fake.IssueAssertionTokens("client-1", "cert-1", key.Public(), time.Hour)
	rc := &nsRecorder{next: fake.Handler()}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	cred, err := connector.NetSuiteCredential("client-1", "cert-1", pemOf(t, key))
	if err != nil {
		t.Fatal(err)
	}
	tokenURL := srv.URL + fakesystem.NetSuiteTokenPath
	c, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP, BaseURL: srv.URL,
		Token: cred, TokenURL: tokenURL, BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return fake, c, rc, tokenURL
}

// netsuiteConformant records what reaches a NetSuite fake and, when the test ends, holds
// every request to the documented ones: the contract and profile tests' requests are
// checked as well as this file's.
func netsuiteConformant(t testing.TB, h http.Handler) http.Handler {
	all := nsFixtures(t)
	rc := &nsRecorder{next: h}
	t.Cleanup(func() {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for _, e := range rc.seen {
			if f, ok := e.documented(all); !ok {
				t.Errorf("%s %s?%s matches no documented NetSuite request", e.method, e.path, e.query)
			} else {
				checkNetSuiteRequest(t, e, f, "")
			}
		}
	})
	return rc
}

// Every request the connector makes of NetSuite, through each operation, is a documented one.
func TestNetSuiteRequestsAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	all := nsFixtures(t)
	fake, c, rc, tokenURL := startNetSuiteM2M(t)
	fake.Seed("salesOrder", "SO-1", map[string]any{"memo": "a", "item": map[string]any{"items": []any{map[string]any{"quantity": 1}}}})
	fake.Seed("customer", "C-1", map[string]any{"companyName": "Nordwind", "externalId": "X-1"})
	ctx := context.Background()
	steps := []func() error{
		func() error { _, err := c.Get(ctx, "salesOrder", "SO-1"); return err },
		func() error {
			_, err := c.Write(ctx, write("k-1", map[string]any{"companyName": "Nordwind AG"}))
			return err
		},
		func() error {
			_, err := c.Write(ctx, connector.WriteRequest{Entity: "salesOrder", RecordID: "SO-1", IdempotencyKey: "k-2", Origin: "syncassist",
				Fields: map[string]any{"item": map[string]any{"items": []any{map[string]any{"quantity": 2}}}}})
			return err
		},
		func() error {
			_, err := c.Write(ctx, connector.WriteRequest{Entity: "customer", Create: true, IdempotencyKey: "k-3", Origin: "syncassist",
				Fields: map[string]any{"companyName": "New"}})
			return err
		},
		func() error {
			_, err := c.Write(ctx, connector.WriteRequest{Entity: "customer", RecordID: "X-2", UpsertKey: connector.NetSuiteExternalID,
				IdempotencyKey: "k-4", Origin: "syncassist", Fields: map[string]any{"companyName": "Upserted"}})
			return err
		},
		func() error { _, err := c.Find(ctx, "customer", "companyName", "Nordwind AG"); return err },
		func() error { _, err := c.Changes(ctx, "customer", time.Unix(0, 0), "", 10); return err },
		func() error { _, err := c.ListSyncErrors(ctx, time.Time{}, "", 10); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	rc.mu.Lock()
	seen := slices.Clone(rc.seen)
	rc.mu.Unlock()
	used := map[string]bool{}
	for _, e := range seen {
		f, ok := e.documented(all)
		if !ok {
			t.Errorf("%s %s?%s matches no documented NetSuite request", e.method, e.path, e.query)
			continue
		}
		used[f.name] = true
		checkNetSuiteRequest(t, e, f, tokenURL)
	}
	for _, want := range []string{"request-token-m2m", "request-get-record-expanded", "request-patch-replace-sublist", "request-suiteql"} {
		if !used[want] {
			t.Errorf("no request was an instance of %s", want)
		}
	}
}

// The fake, brought into each documented situation, answers in the documented shape.
func TestNetSuiteFakeAnswersInTheDocumentedShapes(t *testing.T) {
	t.Parallel()
	all := nsFixtures(t)
	fake := fakesystem.New(connector.SystemHostERP)
	fake.Seed("salesOrder", "1", map[string]any{"memo": "x", "item": map[string]any{"items": []any{map[string]any{"item": map[string]any{"id": "7"}, "quantity": 1}}}})
	fake.RequireToken("tok")
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	// A transport of its own: a parallel test's server closing drops http.DefaultTransport's
	// idle connections under a request in flight.
	client := &http.Client{Transport: &http.Transport{}}
	send := func(method, path, body string, auth bool) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if auth {
			req.Header.Set("Authorization", "Bearer tok")
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	rec := "/services/rest/record/v1/salesOrder/1"
	cases := map[string]func() *http.Response{
		"request-get-record-expanded": func() *http.Response { return send("GET", rec+"?expandSubResources=true", "", true) },
		"response-get-record-links":   func() *http.Response { return send("GET", rec, "", true) },
		"request-patch-replace-sublist": func() *http.Response {
			return send("PATCH", rec+"?replace=item", `{"item":{"items":[{"quantity":1}]}}`, true)
		},
		"request-patch-record": func() *http.Response { return send("PATCH", rec, `{"memo":"y"}`, true) },
		"request-post-record": func() *http.Response {
			return send("POST", "/services/rest/record/v1/customer", `{"companyName":"N"}`, true)
		},
		"request-suiteql": func() *http.Response {
			req, _ := http.NewRequest("POST", srv.URL+"/services/rest/query/v1/suiteql?limit=10&offset=0",
				strings.NewReader(`{"q":"SELECT id FROM salesorder WHERE memo = 'y' ORDER BY id"}`))
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Prefer", "transient")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		},
		"request-metadata-record-schema": func() *http.Response {
			req, _ := http.NewRequest("GET", srv.URL+"/services/rest/record/v1/metadata-catalog/salesOrder", nil)
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Accept", "application/schema+json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		},
		"error-401-invalid-login":   func() *http.Response { return send("GET", rec, "", false) },
		"error-400-invalid-content": func() *http.Response { return send("PATCH", rec, `[1]`, true) },
		"error-404-nonexistent-id":  func() *http.Response { return send("GET", "/services/rest/record/v1/salesOrder/404", "", true) },
		"error-429-concurrency-limit-exceeded": func() *http.Response {
			fake.FailNextWithCode(1, http.StatusTooManyRequests, "CONCURRENCY_LIMIT_EXCEEDED")
			return send("GET", rec, "", true)
		},
		"error-500-unexpected-error": func() *http.Response {
			fake.FailNextWithCode(1, http.StatusInternalServerError, "UNEXPECTED_ERROR")
			return send("GET", rec, "", true)
		},
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range cases {
			if !yield(n) {
				return
			}
		}
	}) {
		f, ok := all[name]
		if !ok || f.Response == nil {
			t.Fatalf("no fixture %s with a response", name)
		}
		checkNetSuiteAnswer(t, f, cases[name]())
	}
}

// Every documented error body, replayed verbatim, is read as Oracle describes it.
func TestNetSuiteReadsEveryDocumentedError(t *testing.T) {
	t.Parallel()
	var errs []fixture
	for _, f := range nsFixtures(t) {
		if f.Expect != nil {
			errs = append(errs, f)
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].name < errs[j].name })
	if len(errs) == 0 {
		t.Fatal("no error fixtures")
	}
	for _, f := range errs {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			for k, v := range f.Response.Headers {
				w.Header().Set(k, v)
			}
			w.WriteHeader(f.Response.Status)
			w.Write(f.Response.Body)
		}))
		c, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP, BaseURL: srv.URL, Token: "tok", MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Get(context.Background(), "salesOrder", "1")
		c.CloseIdleConnections()
		srv.Close()
		ce, ok := err.(*connector.Error)
		want := f.Expect
		if !ok || connector.ErrorKind(err) != want.Kind || ce.Code != want.Code || ce.Retryable != want.Retryable ||
			ce.RetryAfter != time.Duration(want.RetryAfterSeconds)*time.Second {
			t.Errorf("%s: read as %v; the fixture (%s) wants kind %s code %s retryable %v", f.name, err, f.Source, want.Kind, want.Code, want.Retryable)
		}
	}
}
