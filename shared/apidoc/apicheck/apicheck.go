// Package apicheck holds the server to its OpenAPI document (issue 36 §2): a Checker wraps
// the API and validates every request and response passing through it against
// apidoc.Document with kin-openapi's openapi3filter, response validation on. The local
// stack's in-process API (compose.Stack.Mux) runs behind it in every handler test, the
// local server behind it in the browser tests, and the document's property-based fuzz
// (infra/compose) through it.
//
// A mismatch is a Finding:
//   - a response that breaks its operation's schema, or a status the operation does not
//     document;
//   - a request the document calls invalid that the server accepted (answered below 400);
//   - a served route under /api (answered below 400) the document does not have.
//
// Requests the document calls invalid and the server refuses are what error cases send on
// purpose, and a request the server refuses though the document allows it is judged by
// the fuzz, which knows it sent a valid one (Checker.Valid).
package apicheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/syncassist/syncassist/shared/apidoc"
)

// EnvCheck names the variable that puts the local server behind a Checker (the Makefile
// sets it for the browser tests).
const EnvCheck = "SYNCASSIST_API_CHECK"

// Finding is one way a request or its answer left the document.
type Finding struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Kind is response, request or route.
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s -> %d: %s: %s", f.Method, f.Path, f.Status, f.Kind, f.Detail)
}

// compiled is the document loaded, validated and routed once per process: loading it is
// the costly part, validating one exchange is cheap.
var compiled = sync.OnceValues(func() (*Document, error) {
	for _, ct := range []string{"text/html", "text/css", "text/javascript", "text/csv", "text/plain"} {
		openapi3filter.RegisterBodyDecoder(ct, text)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(apidoc.Document())
	if err != nil {
		return nil, fmt.Errorf("apicheck: load the document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("apicheck: the document is not valid OpenAPI: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("apicheck: route the document: %w", err)
	}
	return &Document{T: doc, router: router}, nil
})

// Document is the loaded OpenAPI document and its router.
type Document struct {
	T      *openapi3.T
	router routers.Router
}

// Load returns the process's one compiled document.
func Load() (*Document, error) { return compiled() }

// text decodes the console's text bodies; kin-openapi decodes only JSON and forms itself.
func text(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	return string(b), err
}

var options = &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}

// Exchange is one request, with its body read, and the answer it got.
type Exchange struct {
	Request *http.Request
	Body    []byte
	Status  int
	Header  http.Header
	Answer  []byte
}

// Verdict is what the document says of an exchange.
type Verdict struct {
	// Operation is "METHOD /path/{template}", "" when the document has no such route.
	Operation string
	// RequestErr is why the document calls the request invalid (nil: valid).
	RequestErr error
	// ResponseErr is why the answer breaks the document (nil: it conforms).
	ResponseErr error
}

// Judge validates x against the document.
func (d *Document) Judge(x Exchange) Verdict {
	req := x.Request.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(x.Body))
	route, params, err := d.router.FindRoute(req)
	if err != nil {
		return Verdict{RequestErr: err}
	}
	v := Verdict{Operation: route.Method + " " + route.Path}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: options}
	v.RequestErr = openapi3filter.ValidateRequest(context.Background(), in)
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: x.Status, Header: x.Header,
		Body: io.NopCloser(bytes.NewReader(x.Answer)), Options: options}
	v.ResponseErr = openapi3filter.ValidateResponse(context.Background(), out)
	return v
}

// Findings are the mismatches of one verdict under the rules of the package comment.
func (v Verdict) Findings(x Exchange) []Finding {
	at := func(kind string, err error) Finding {
		return Finding{Method: x.Request.Method, Path: x.Request.URL.Path, Status: x.Status, Kind: kind, Detail: oneLine(err)}
	}
	var out []Finding
	switch {
	case v.Operation == "" && x.Status < 400 && strings.HasPrefix(x.Request.URL.Path, "/api/"):
		// Outside /api the console's catch-all serves its files and routes (the document's
		// GET /{path}, whose one segment cannot name /assets/… or /auth/callback).
		out = append(out, at("route", v.RequestErr))
	case v.Operation == "":
	default:
		if v.RequestErr != nil && x.Status < 400 {
			out = append(out, at("request", v.RequestErr))
		}
		if v.ResponseErr != nil {
			out = append(out, at("response", v.ResponseErr))
		}
	}
	return out
}

func oneLine(err error) string {
	if err == nil {
		return "not in the document"
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// Checker collects the findings of every exchange through the handlers it wraps.
type Checker struct {
	doc *Document
	mu  sync.Mutex
	out []Finding
	ops map[string]int
}

// New returns a Checker over the process's compiled document.
func New() (*Checker, error) {
	d, err := Load()
	if err != nil {
		return nil, err
	}
	return &Checker{doc: d, ops: map[string]int{}}, nil
}

// Wrap returns h behind the checker: h answers as before, and the exchange is judged.
func (c *Checker) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "request body unreadable", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		c.Judge(Exchange{Request: r, Body: body, Status: rec.Code, Header: rec.Header(), Answer: rec.Body.Bytes()})
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// Judge validates x, keeps its findings and returns its verdict.
func (c *Checker) Judge(x Exchange) Verdict {
	v := c.doc.Judge(x)
	f := v.Findings(x)
	c.mu.Lock()
	defer c.mu.Unlock()
	if v.Operation != "" {
		c.ops[v.Operation]++
	}
	c.out = append(c.out, f...)
	return v
}

// Findings returns the findings so far and forgets them.
func (c *Checker) Findings() []Finding {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.out
	c.out = nil
	return out
}

// Operations are the document's operations the checker saw exchanges of, sorted.
func (c *Checker) Operations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.ops))
	for op := range c.ops {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// Handler serves the findings so far as JSON (and forgets them), for a browser test run's
// teardown to fail on; it is mounted only by a local server started with EnvCheck.
func (c *Checker) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		f := c.Findings()
		if f == nil {
			f = []Finding{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = jsonEncode(w, f)
	})
}

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }
