package connector_test

// The conformance suite holds the connectors and the fakes to what the vendors publish,
// kept under shared/connector/vendors/<vendor>/ (see its README): fixtures written from the
// vendors' pages, each citing its page, and ShipStation's OpenAPI document. Three checks
// per vendor, in vendor_<name>_conformance_test.go:
//
//   - requests: what the connector sends to the fake is recorded and held to the
//     documented requests (method, path, headers, body);
//   - answers: the fake, brought into each documented situation, answers with the
//     fixture's status, headers and body shape;
//   - errors: every documented error answer, replayed verbatim, is read as the vendor
//     documents it (conflict, rate limit with its wait, permanent refusal, ...).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// fixture is one documented request or answer of a vendor.
type fixture struct {
	name string
	// Source is the vendor page it is written from; Retrieved the day it was read.
	Source    string `json:"source"`
	Retrieved string `json:"retrieved"`
	// Documented is what the page says; Assumed what the fixture adds that it does not.
	Documented string `json:"documented"`
	Assumed    string `json:"assumed,omitempty"`
	Request    *struct {
		Method string `json:"method"`
		// Path is a template: {name} stands for one path segment's value.
		Path    string            `json:"path"`
		Headers map[string]string `json:"headers,omitempty"`
		Body    json.RawMessage   `json:"body,omitempty"`
	} `json:"request,omitempty"`
	Response *struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers,omitempty"`
		Body    json.RawMessage   `json:"body,omitempty"`
	} `json:"response,omitempty"`
	// Expect is how the connector must read the answer when it is an error.
	Expect *struct {
		Kind              string `json:"kind"`
		Code              string `json:"code"`
		Retryable         bool   `json:"retryable"`
		RetryAfterSeconds int    `json:"retryAfterSeconds"`
	} `json:"expect,omitempty"`
}

// loadFixtures reads every fixture of a vendor's folder; each must cite its source.
func loadFixtures(t testing.TB, vendor string) map[string]fixture {
	t.Helper()
	dir := filepath.Join("vendors", vendor, "fixtures")
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in %s: %v", dir, err)
	}
	out := map[string]fixture{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.name = strings.TrimSuffix(filepath.Base(p), ".json")
		if !strings.HasPrefix(f.Source, "https://") || f.Retrieved == "" || f.Documented == "" {
			t.Fatalf("%s: a fixture names its source (https), the day it was read and what the page documents", p)
		}
		out[f.name] = f
	}
	return out
}

// errorFixtures are the fixtures that say how an error answer is to be read.
func errorFixtures(all map[string]fixture) []fixture {
	var out []fixture
	for _, f := range all {
		if f.Expect != nil && f.Response != nil {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// checkErrorReadings replays every error fixture verbatim to a Get and checks the
// connector's reading of it.
func checkErrorReadings(t *testing.T, pc profileCase, all map[string]fixture) {
	t.Helper()
	fixtures := errorFixtures(all)
	if len(fixtures) == 0 {
		t.Fatal("no error fixtures")
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range f.Response.Headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(f.Response.Status)
				w.Write(f.Response.Body)
			}))
			defer srv.Close()
			c, err := connector.New(connector.Config{AllowLoopback: true, System: pc.sys, BaseURL: srv.URL + fakesystem.BasePath(pc.sys),
				Token: pc.cred, MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseIdleConnections()
			_, err = c.Get(context.Background(), pc.entity, pc.id)
			var ce *connector.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Get = %v, want a *connector.Error", err)
			}
			want := f.Expect
			if got := connector.ErrorKind(err); got != want.Kind || ce.Code != want.Code || ce.Retryable != want.Retryable ||
				ce.RetryAfter != time.Duration(want.RetryAfterSeconds)*time.Second {
				t.Fatalf("read as kind %q code %q retryable %v retryAfter %s; the fixture (%s) wants %q %q %v %ds",
					got, ce.Code, ce.Retryable, ce.RetryAfter, f.Source, want.Kind, want.Code, want.Retryable, want.RetryAfterSeconds)
			}
		})
	}
}

// checkAnswerShape holds an answer of the fake to a fixture's: the same status, the
// fixture's headers present, and a body of the same shape (every key of the fixture's
// objects present with a value of the same JSON kind; arrays by their first element).
func checkAnswerShape(t *testing.T, f fixture, resp *http.Response) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != f.Response.Status {
		t.Fatalf("%s: status %d, the vendor answers %d (%s)", f.name, resp.StatusCode, f.Response.Status, f.Source)
	}
	for k := range f.Response.Headers {
		if k == "Content-Type" {
			continue
		}
		if resp.Header.Get(k) == "" {
			t.Fatalf("%s: no %s header, the vendor sends one (%s)", f.name, k, f.Source)
		}
	}
	if len(f.Response.Body) == 0 {
		return
	}
	var want, got any
	if err := json.Unmarshal(f.Response.Body, &want); err != nil {
		t.Fatalf("%s: fixture body: %v", f.name, err)
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: the fake's body is not JSON: %s", f.name, body)
	}
	if path, ok := sameShape(want, got, "$"); !ok {
		t.Fatalf("%s: the fake's body differs in shape at %s from the vendor's (%s):\n got %s", f.name, path, f.Source, body)
	}
}

// sameShape says whether got has want's shape, and where it does not.
func sameShape(want, got any, at string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return at, false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return at + "." + k, false
			}
			if codeKeys[k] && wv != gv {
				// A vendor's error code is its meaning: the value must be the same.
				return at + "." + k, false
			}
			if p, ok := sameShape(wv, gv, at+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return at, false
		}
		if len(w) == 0 || len(g) == 0 {
			return "", true
		}
		return sameShape(w[0], g[0], at+"[0]")
	case nil:
		return "", true
	default:
		if kindOf(want) != kindOf(got) {
			return at, false
		}
		return "", true
	}
}

// codeKeys are the keys whose values are vendor codes, compared by value.
var codeKeys = map[string]bool{"code": true, "errorCode": true}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "other"
}

// recorded is one request the connector sent to a fake.
type recorded struct {
	method, path string
	header       http.Header
	body         []byte
	url          string
}

// recorder sits in front of a fake and keeps what reached it.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
	next http.Handler
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, recorded{method: r.Method, path: r.URL.EscapedPath(), header: r.Header.Clone(), body: body, url: r.URL.String()})
	rc.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rc.next.ServeHTTP(w, r)
}

func (rc *recorder) requests() []recorded {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]recorded(nil), rc.reqs...)
}

// startRecorded is startProfile with the requests recorded.
func startRecorded(t *testing.T, pc profileCase) (*fakesystem.Server, *connector.Client, *recorder) {
	t.Helper()
	fake := fakesystem.New(pc.sys)
	fake.Seed(pc.entity, pc.id, pc.seed)
	fake.RequireToken(pc.cred)
	rc := &recorder{next: fake.Handler()}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	c, err := connector.New(connector.Config{AllowLoopback: true, System: pc.sys, BaseURL: srv.URL + fakesystem.BasePath(pc.sys),
		Token: pc.cred, BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return fake, c, rc
}

// headerFormats are how a documented header's value is checked, when it is not a
// literal: by the form the vendor's page gives it.
var headerFormats = map[string]*regexp.Regexp{
	"If-Match":            regexp.MustCompile(`^W/"[^"]+"$`),
	"If-Unmodified-Since": regexp.MustCompile(`^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$`),
	"Authorization":       regexp.MustCompile(`^(Bearer|Basic) \S+$`),
	"Content-Type":        regexp.MustCompile(`^application/json`),
	"Prefer":              regexp.MustCompile(`^odata\.maxpagesize=\d+$`),
}

// checkRequests holds every recorded request to the documented ones: each must match a
// request fixture's method and path template, carry its headers in their documented
// form, and, where the fixture has a JSON object body, send a JSON object.
func checkRequests(t *testing.T, reqs []recorded, all map[string]fixture) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no requests were recorded")
	}
	for _, r := range reqs {
		f, ok := documentedRequest(r, all)
		if !ok {
			t.Errorf("%s %s matches no documented request", r.method, r.path)
			continue
		}
		for k, v := range f.Request.Headers {
			got := r.header.Get(k)
			if re, ok := headerFormats[k]; ok && !re.MatchString(got) || !ok && got != v {
				t.Errorf("%s %s: header %s = %q, not in the documented form %q (%s)", r.method, r.path, k, got, v, f.Source)
			}
		}
		if len(f.Request.Body) > 0 && f.Request.Body[0] == '{' {
			var obj map[string]any
			if json.Unmarshal(r.body, &obj) != nil {
				t.Errorf("%s %s: the body is not a JSON object (%s)", r.method, r.path, f.Source)
			}
		}
	}
}

func documentedRequest(r recorded, all map[string]fixture) (fixture, bool) {
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := all[n]
		if f.Request != nil && f.Request.Method == r.method && pathTemplate(f.Request.Path).MatchString(r.path) {
			return f, true
		}
	}
	return fixture{}, false
}

// pathTemplate turns /a/{x}/b into a pattern where {x} is one segment (no slash) and the
// rest is literal; a trailing ? in the template ends the path.
func pathTemplate(tpl string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for rest := tpl; rest != ""; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		b.WriteString(regexp.QuoteMeta(rest[:open]))
		b.WriteString(`[^/]+`)
		rest = rest[open+end+1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// fakeRaw sends one raw request to a fresh fake of sys seeded with pc's record.
func fakeRaw(t *testing.T, pc profileCase, prepare func(*fakesystem.Server), method, path string, header map[string]string, body string) *http.Response {
	t.Helper()
	fake := fakesystem.New(pc.sys)
	fake.Seed(pc.entity, pc.id, pc.seed)
	if prepare != nil {
		prepare(fake)
	}
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
