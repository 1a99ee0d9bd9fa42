package toolcatalog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// ClaimReader lists a tenant's processed rows in one status, newest first; the
// syncerror.ClaimStore implementations (DynamoDB and syncerrortest) satisfy it.
type ClaimReader interface {
	List(ctx context.Context, tenantID string, q syncerror.ListQuery) (syncerror.Page, error)
}

// Catalog serves the tool catalogue and the MCP endpoint. Its fields are its dependencies;
// AI and External are optional, the rest are required by the tools that use them (a tool
// whose dependency is missing answers "temporarily unavailable" rather than guessing).
type Catalog struct {
	// Claims backs integration_status.
	Claims ClaimReader
	// Manifests and Ledger back governance_check (ownership and loop checks).
	Manifests governance.ManifestSource
	Ledger    governance.Ledger
	// Scanner scans governance_check input, field_mapping sampleData and every result.
	Scanner *dlp.Scanner
	// AI, when set, refines ambiguous field-mapping suggestions for calls that ask for it.
	AI *ai.Governed
	// Audit receives one mcp.call record per tool call.
	Audit *audit.Log
	// External backs mcp_discover; nil lists no external tools.
	External ExternalTools
	Now      func() time.Time
	// LoopWindow is how far back governance_check looks for a reciprocal write; zero means
	// governance.DefaultLoopWindow, which is what the guard uses unless configured.
	LoopWindow time.Duration
	// Origins are the browser origins the MCP endpoint serves (the API's CORS origins): a
	// request that carries another Origin is refused (MCPHandler).
	Origins []string
}

// Audit vocabulary of the tool calls.
const (
	// ActionTypeMCP is the audit area of tool calls. audit.ActionTypes does not list it
	// yet, so GET /api/audit?actionType=mcp is refused until it does; the records are
	// written and listed by the unfiltered query meanwhile.
	ActionTypeMCP = "mcp"
	// ActionKeyCall is written once per tools/call, and for a refused MCP request.
	ActionKeyCall = "mcp.call"
)

// Problem codes of this package (documented in the README's API reference).
const (
	CodeUnauthenticated      = identity.CodeUnauthenticated
	CodeForbidden            = identity.CodeForbidden
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeNotAcceptable        = "not_acceptable"
	CodeBodyTooLarge         = "body_too_large"
	CodeUnsupportedProtocol  = "unsupported_protocol_version"
	CodeOriginNotAllowed     = "origin_not_allowed"
)

// MaxRequestBytes bounds a POST /api/mcp body. 256 KiB holds a field mapping of several
// hundred fields with sample records, and matches the webhook's limit.
const MaxRequestBytes = 256 << 10

func (c *Catalog) now() time.Time {
	if c.Now != nil {
		return c.Now().UTC()
	}
	return time.Now().UTC()
}

func (c *Catalog) loopWindow() time.Duration {
	if c.LoopWindow > 0 {
		return c.LoopWindow
	}
	return governance.DefaultLoopWindow
}

// ListResponse is the body of GET /api/mcp/tools.
type ListResponse struct {
	Success         bool   `json:"success"`
	ProtocolVersion string `json:"protocolVersion"`
	Tools           []Tool `json:"tools"`
	Timestamp       string `json:"timestamp"`
}

// ListProblem is the body of a failed GET /api/mcp/tools: an RFC 9457 problem (so clients
// of every other route read it the same way) with the catalogue's success and timestamp
// members added as extension members.
type ListProblem struct {
	*httpapi.Problem
	Success   bool   `json:"success"`
	Timestamp string `json:"timestamp"`
}

// timestampLayout is ISO 8601 (RFC 3339) in UTC with milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z07:00"

// ToolsHandler serves GET /api/mcp/tools for an authenticated caller with the operator
// role (approvers and admins hold it too). Authentication is the wiring's middleware; the
// handler still refuses a request without an identity (401) or without the role (403).
func (c *Catalog) ToolsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, p := authorize(r); p != nil {
			c.writeListProblem(w, r, p)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			c.writeListProblem(w, r, httpapi.NewProblem(http.StatusMethodNotAllowed, CodeMethodNotAllowed,
				"List the tools with GET."))
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, ListResponse{
			Success:         true,
			ProtocolVersion: ProtocolVersion,
			Tools:           Tools(),
			Timestamp:       c.now().Format(timestampLayout),
		})
	})
}

func (c *Catalog) writeListProblem(w http.ResponseWriter, r *http.Request, p *httpapi.Problem) {
	p.CorrelationID = httpapi.CorrelationID(r.Context())
	w.Header().Set("Content-Type", "application/problem+json")
	if p.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	w.WriteHeader(p.Status)
	_ = jsonEncode(w, ListProblem{Problem: p, Success: false, Timestamp: c.now().Format(timestampLayout)})
}

// ListEnvelope gives every problem answer of h the catalogue's failure members (success:
// false and timestamp), including the 401 and 403 of authentication middleware mounted
// in front of ToolsHandler. Wrap the whole chain of GET /api/mcp/tools in it:
//
//	c.ListEnvelope(identity.Authenticate(v, sessions, identity.ValidateGuestContext(...c.ToolsHandler())))
//
// Answers that are not problem documents, and problems that already carry success, pass
// unchanged.
func (c *Catalog) ListEnvelope(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ew := &envelopeWriter{ResponseWriter: w}
		h.ServeHTTP(ew, r)
		if ew.held == nil {
			return
		}
		body := ew.held.Bytes()
		var doc map[string]any
		if json.Unmarshal(body, &doc) == nil && doc != nil {
			if _, ok := doc["success"]; !ok {
				doc["success"] = false
				doc["timestamp"] = c.now().Format(timestampLayout)
				if b, err := json.Marshal(doc); err == nil {
					body = append(b, '\n')
				}
			}
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(ew.status)
		_, _ = w.Write(body)
	})
}

// envelopeWriter holds back a problem+json answer so ListEnvelope can add its members;
// everything else goes straight through.
type envelopeWriter struct {
	http.ResponseWriter
	status  int
	decided bool
	held    *bytes.Buffer
}

func (e *envelopeWriter) WriteHeader(code int) {
	if e.decided {
		return
	}
	e.decided = true
	mt, _, _ := mime.ParseMediaType(e.Header().Get("Content-Type"))
	if code >= 400 && mt == "application/problem+json" {
		e.status, e.held = code, &bytes.Buffer{}
		return
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *envelopeWriter) Write(b []byte) (int, error) {
	if !e.decided {
		e.WriteHeader(http.StatusOK)
	}
	if e.held != nil {
		return e.held.Write(b)
	}
	return e.ResponseWriter.Write(b)
}

// authorize returns the caller's identity, or the problem that refuses it: 401 without
// an identity that names a tenant, 403 without the operator role.
func authorize(r *http.Request) (identity.Identity, *httpapi.Problem) {
	id, ok := identity.FromContext(r.Context())
	if !ok || !id.Attributable() {
		return identity.Identity{}, httpapi.NewProblem(http.StatusUnauthorized, CodeUnauthenticated,
			"Sign in: send Authorization: Bearer <token>.")
	}
	if !id.HasRole(identity.RoleOperator) {
		return id, httpapi.NewProblem(http.StatusForbidden, CodeForbidden, "The tools require the operator role.")
	}
	return id, nil
}

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }
