package toolcatalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// originAllowed: the MCP transport (Streamable HTTP, "Security Warning") requires a server
// to validate Origin and answer 403 to one it does not accept, against DNS rebinding and
// pages calling it from a user's browser. Agents send no Origin and are served; a browser
// is served only from an origin the function's CORS_ALLOWED_ORIGINS names. The CDK gives
// that list to API Gateway, not to the functions, so deployed the endpoint refuses every
// browser (the console does not call it); the local stack sets it. The request's Host is
// not consulted: a rebinding page makes it agree with its Origin.
func (c *Catalog) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	return slices.ContainsFunc(c.Origins, func(o string) bool { return strings.EqualFold(o, origin) })
}

// serverVersions are the protocol versions the endpoint negotiates, newest first: a client
// asking for another (2026-07-28, or server/discover) is answered 2025-11-25, what the
// catalogue reports. 2024-11-05 is left out because it predates Streamable HTTP.
var serverVersions = []string{ProtocolVersion, "2025-06-18", "2025-03-26"}

// ServerName is the implementation name the endpoint reports in initialize.
const ServerName = "syncassist-tools"

// MCPHandler serves POST /api/mcp: MCP over Streamable HTTP, stateless, answering with
// JSON (not SSE); mcp_protocol.go is the protocol. Like ToolsHandler it needs an identity
// with the operator role, which it hands to the tool calls; the tools act only for that
// identity's tenant.
//
// Before the SDK sees a request the handler answers, as problem+json: 403 for a request
// from a browser origin the API does not allow (originAllowed), 401/403 (identity),
// 405 for anything but POST, 415 for a body that is not application/json, 406 for an
// Accept header without application/json and text/event-stream (the transport requires
// both), and 413 for a body over MaxRequestBytes. Everything else is JSON-RPC.
func (c *Catalog) MCPHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.originAllowed(r.Header.Get("Origin")) {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, CodeOriginNotAllowed,
				"This origin may not call the MCP endpoint from a browser; agents call it without an Origin header."))
			return
		}
		id, p := authorize(r)
		if p != nil && p.Status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", "Bearer")
			httpapi.WriteProblem(w, r, p)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusMethodNotAllowed, CodeMethodNotAllowed,
				"The MCP endpoint is stateless: send each JSON-RPC message with POST."))
			return
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType,
				"Send the JSON-RPC message as Content-Type: application/json."))
			return
		}
		if !acceptsBoth(r.Header.Values("Accept")) {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotAcceptable, CodeNotAcceptable,
				"Send Accept: application/json, text/event-stream (MCP Streamable HTTP); answers are JSON."))
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
		if err != nil {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "unreadable_body",
				"The request body could not be read."))
			return
		}
		if len(body) > MaxRequestBytes {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusRequestEntityTooLarge, CodeBodyTooLarge,
				fmt.Sprintf("The request body exceeds %d bytes; send fewer fields or sample records.", MaxRequestBytes)))
			return
		}
		if p != nil {
			c.auditRefused(r.Context(), id, body)
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
			httpapi.WriteProblem(w, r, p)
			return
		}
		c.serveRPC(w, r, id, body)
	})
}

func acceptsBoth(values []string) bool {
	var js, sse bool
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			switch mt {
			case "application/json", "application/*":
				js = true
			case "text/event-stream", "text/*":
				sse = true
			case "*/*":
				js, sse = true, true
			}
		}
	}
	return js && sse
}

// auditRefused records a request refused for its role: an identity tried to use the
// tools. Only the JSON-RPC method and tool name are kept, never arguments, read by their
// exact member names as the endpoint reads them (decodeMessage, decodeCallParams).
func (c *Catalog) auditRefused(ctx context.Context, id identity.Identity, body []byte) {
	msg, _ := decodeMessage(body)
	method := ""
	if msg.Method != nil {
		method = *msg.Method
	}
	details := map[string]any{"reason": "forbidden", "method": truncate(method, 64)}
	if p, ok := decodeCallParams(msg.Params); ok && *p.Name != "" {
		details["tool"] = truncate(*p.Name, 128)
	}
	c.writeAudit(ctx, audit.Entry{Actor: id, ActionType: ActionTypeMCP, ActionKey: ActionKeyCall,
		Result: audit.ResultDenied, Resource: "mcp", Details: details})
}

func (c *Catalog) writeAudit(ctx context.Context, e audit.Entry) error {
	if c.Audit == nil {
		err := errors.New("toolcatalog: no audit log configured")
		httpapi.Logger(ctx).Error("tool call not audited", "actionKey", e.ActionKey, "error", err)
		return err
	}
	if err := c.Audit.Write(ctx, e); err != nil {
		httpapi.Logger(ctx).Error("tool call not audited", "actionKey", e.ActionKey, "error", err)
		return err
	}
	return nil
}

// runner is a tool's implementation: args are the call's arguments after validation
// against the tool's schema (optional nulls removed), ready for json.Unmarshal.
type runner func(call *toolCall, args json.RawMessage) (any, error)

func (c *Catalog) runners() map[string]runner {
	return map[string]runner{
		ToolFieldMappingSuggest: c.fieldMappingSuggest,
		ToolIntegrationStatus:   c.integrationStatus,
		ToolGovernanceCheck:     c.governanceCheck,
		ToolMCPDiscover:         c.mcpDiscover,
	}
}

// toolCall is one tools/call in progress: who asked, and what the audit record will say.
type toolCall struct {
	c       *Catalog
	ctx     context.Context
	id      identity.Identity
	tool    string
	meta    map[string]any
	keys    []string
	details map[string]any
}

func (c *Catalog) handle(ctx context.Context, id identity.Identity, t Tool, run runner, p callParams) *toolResult {
	start := time.Now()
	call := &toolCall{c: c, ctx: ctx, id: id, tool: t.Name, meta: p.Meta, details: map[string]any{}}
	args, keys, errs := decodeArguments(p.Arguments, t.InputSchema)
	call.keys = keys
	var out any
	var err error
	if errs != nil {
		err = errs
	} else {
		out, err = run(call, args)
	}
	return call.finish(out, err, time.Since(start))
}

// errUnavailable wraps failures of a dependency (a store, the manifest source): the call
// may succeed if repeated.
var errUnavailable = errors.New("toolcatalog: dependency unavailable")

func unavailable(what string, err error) error {
	return fmt.Errorf("%w: %s: %w", errUnavailable, what, err)
}

// finish turns a tool's outcome into the call's result and its audit record. A result
// that cannot be audited is not returned: an agent must never hold data whose handing
// out left no trace.
func (call *toolCall) finish(out any, err error, took time.Duration) *toolResult {
	result, outcome := audit.ResultSuccess, "ok"
	var res *toolResult
	var argErrs argumentErrors
	switch {
	case errors.As(err, &argErrs):
		result, outcome = audit.ResultFailure, "invalid_arguments"
		fields := make([]string, len(argErrs))
		for i, e := range argErrs {
			fields[i] = e.Field
		}
		call.details["invalidFields"] = fields
		res = call.errorResult("invalid_arguments", argErrs.Error()+". Fix the arguments and call again.", argErrs)
	case errors.Is(err, errUnavailable):
		result, outcome = audit.ResultFailure, "unavailable"
		httpapi.Logger(call.ctx).Error("tool call failed", "tool", call.tool, "error", err)
		res = call.errorResult("temporarily_unavailable", "The service could not complete the call right now; retry shortly.", nil)
	case err != nil:
		result, outcome = audit.ResultFailure, "internal_error"
		httpapi.Logger(call.ctx).Error("tool call failed", "tool", call.tool, "error", err)
		res = call.errorResult("internal_error", "The call failed inside the service; quote correlation id "+
			httpapi.CorrelationID(call.ctx)+" when reporting it.", nil)
	default:
		var rerr error
		if res, rerr = call.jsonResult(out); rerr != nil {
			result, outcome = audit.ResultFailure, "internal_error"
			httpapi.Logger(call.ctx).Error("tool result not built", "tool", call.tool, "error", rerr)
			res = call.errorResult("internal_error", "The call failed inside the service.", nil)
		}
	}
	call.details["tool"] = call.tool
	call.details["argumentKeys"] = call.keys
	call.details["outcome"] = outcome
	call.details["durationMs"] = took.Milliseconds()
	if aerr := call.c.writeAudit(call.ctx, audit.Entry{Actor: call.id, ActionType: ActionTypeMCP,
		ActionKey: ActionKeyCall, Result: result, Resource: "mcp/" + call.tool, Details: call.details}); aerr != nil {
		return call.errorResult("temporarily_unavailable", "The call could not be recorded in the audit log, "+
			"so its result is withheld; retry shortly.", nil)
	}
	return res
}

// jsonResult answers v as structured content and as its JSON text. The JSON is scanned
// with the record policy before it leaves: no tool echoes a sensitive value on purpose,
// and this catches one that slipped into a field name, an id or a message.
func (call *toolCall) jsonResult(v any) (*toolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	b, err = call.c.redact(call.ctx, b)
	if err != nil {
		return nil, err
	}
	return &toolResult{Content: []textContent{{Type: "text", Text: string(b)}}, StructuredContent: b}, nil
}

// redact applies the DLP record policy to an outgoing document, failing closed.
func (c *Catalog) redact(ctx context.Context, doc []byte) ([]byte, error) {
	if c.Scanner == nil {
		return nil, errors.New("toolcatalog: no DLP scanner configured")
	}
	res, err := c.Scanner.ScanJSON(dlp.Record, doc)
	if err != nil {
		return nil, fmt.Errorf("scanning the result: %w", err)
	}
	if len(res.Findings) > 0 {
		httpapi.Logger(ctx).Warn("tool result redacted", "findings", res.Counts())
	}
	return res.Output, nil
}

// ToolError is the structured content of a result with isError set.
type ToolError struct {
	Error struct {
		Code    string               `json:"code"`
		Message string               `json:"message"`
		Errors  []httpapi.FieldError `json:"errors,omitempty"`
	} `json:"error"`
}

func (call *toolCall) errorResult(code, message string, fields []httpapi.FieldError) *toolResult {
	var te ToolError
	te.Error.Code, te.Error.Message, te.Error.Errors = code, message, fields
	b, _ := json.Marshal(te)
	// Messages name the arguments a caller sent, and a name can itself be a secret.
	if call.c.Scanner == nil {
		b, message = []byte(`{"error":{"code":"internal_error","message":"no DLP scanner configured"}}`), "The call failed inside the service."
	} else if safe, err := call.c.redact(call.ctx, b); err != nil {
		b, message = []byte(`{"error":{"code":"internal_error","message":"the answer could not be scanned"}}`), "The call failed inside the service."
	} else {
		b = safe
		if res, err := call.c.Scanner.ScanText(dlp.Record, message); err == nil {
			message = string(res.Output)
		} else {
			message = "The call failed inside the service."
		}
	}
	return &toolResult{IsError: true, Content: []textContent{{Type: "text", Text: message}}, StructuredContent: b}
}

// maxReportedErrors bounds the argument errors one answer lists; a model fixes the first
// ones and calls again.
const maxReportedErrors = 20

// maxAuditedKeys bounds the argument names an audit record keeps; the schemas have at most
// six, so more means a client sending junk.
const maxAuditedKeys = 16

// decodeArguments parses raw (absent or null means {}), drops optional nulls and validates
// the result against s. It returns the arguments re-encoded for json.Unmarshal and the
// sorted top-level names the caller sent, for the audit record.
func decodeArguments(raw json.RawMessage, s *Schema) (json.RawMessage, []string, argumentErrors) {
	var v any = map[string]any{}
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil || dec.More() {
			return nil, []string{}, argumentErrors{{Field: "arguments", Message: "must be a JSON object"}}
		}
	}
	keys := []string{}
	if obj, ok := v.(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if len(keys) == maxAuditedKeys {
				break
			}
			keys = append(keys, truncate(k, 64))
		}
	}
	dropOptionalNulls(s, v)
	if errs := validate(s, v, ""); len(errs) > 0 {
		if len(errs) > maxReportedErrors {
			more := len(errs) - maxReportedErrors
			errs = append(errs[:maxReportedErrors], httpapi.FieldError{Field: "arguments",
				Message: fmt.Sprintf("%d more errors like these are not listed", more)})
		}
		return nil, keys, errs
	}
	clean, err := json.Marshal(v)
	if err != nil {
		return nil, keys, argumentErrors{{Field: "arguments", Message: "must be a JSON object"}}
	}
	return clean, keys, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
