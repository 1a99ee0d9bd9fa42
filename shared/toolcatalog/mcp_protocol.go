package toolcatalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// The MCP endpoint speaks the protocol itself: stateless Streamable HTTP answers one
// JSON-RPC message per POST with one JSON body, which is a few methods over encoding/json.
// The official SDK (used by the tests as the client, so it still checks the wire) linked
// text/template, gob and a JSON-schema library into the function and kept it over the
// 10 MB budget; a server this small gains nothing from it.

// JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object).
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
)

// rpcMessage is one JSON-RPC message from the client: a request (method and id), a
// notification (method, no id) or a response to a server request (result or error).
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// implementation is the serverInfo of initialize.
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions"`
}

// textContent is the one content block a tool result carries: the JSON text of its
// structured content, for clients that read only text.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolResult is the result of tools/call.
type toolResult struct {
	Content           []textContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type callParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      map[string]any  `json:"_meta"`
}

const serverInstructions = "Tools of the SyncAssist integration service. Every call acts for the caller's tenant " +
	"and is audited. Call service.governance_check before proposing a write."

// headerProtocolVersion is the header a client sends after initialize with the version
// it negotiated.
const headerProtocolVersion = "MCP-Protocol-Version"

// serveRPC answers one JSON-RPC message from id, already authorized.
func (c *Catalog) serveRPC(w http.ResponseWriter, r *http.Request, id identity.Identity, body []byte) {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		writeRPC(w, http.StatusBadRequest, nil, nil, &rpcError{rpcInvalidRequest,
			"JSON-RPC batches are not supported: send one message per request"})
		return
	}
	msg, rerr := decodeMessage(body)
	if rerr != nil {
		writeRPC(w, http.StatusBadRequest, nil, nil, rerr)
		return
	}
	if msg.JSONRPC != "2.0" {
		writeRPC(w, http.StatusBadRequest, validID(msg.ID), nil, &rpcError{rpcInvalidRequest, `"jsonrpc" must be "2.0"`})
		return
	}
	if p := bytes.TrimSpace(msg.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' {
		// JSON-RPC 2.0's params is structured (an object, or an array by position), as the
		// document says; any message's is refused, not ignored (issue 36 §2).
		writeRPC(w, http.StatusBadRequest, validID(msg.ID), nil, &rpcError{rpcInvalidRequest, `"params" must be an object or an array`})
		return
	}
	if msg.Method == nil {
		if msg.Result != nil || msg.Error != nil {
			if reason := badResponse(msg); reason != "" {
				writeRPC(w, http.StatusBadRequest, validID(msg.ID), nil, &rpcError{rpcInvalidRequest, reason})
				return
			}
			w.WriteHeader(http.StatusAccepted) // a response to a request this server never sends
			return
		}
		writeRPC(w, http.StatusBadRequest, validID(msg.ID), nil, &rpcError{rpcInvalidRequest, `"method" is missing`})
		return
	}
	method := *msg.Method
	if msg.Result != nil || msg.Error != nil {
		writeRPC(w, http.StatusBadRequest, validID(msg.ID), nil, &rpcError{rpcInvalidRequest, `a request carries no "result" or "error"`})
		return
	}
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted) // notifications (initialized, cancelled) need no answer
		return
	}
	if validID(msg.ID) == nil {
		writeRPC(w, http.StatusBadRequest, nil, nil, &rpcError{rpcInvalidRequest, `"id" must be a string or a number`})
		return
	}
	if v := r.Header.Get(headerProtocolVersion); v != "" && method != "initialize" && method != "server/discover" &&
		!slices.Contains(serverVersions, v) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, CodeUnsupportedProtocol,
			fmt.Sprintf("%s %q is not spoken here; initialize with one of %s.", headerProtocolVersion,
				truncate(v, 32), strings.Join(serverVersions, ", "))))
		return
	}
	result, rerr := c.dispatch(r, id, method, msg.Params)
	writeRPC(w, http.StatusOK, msg.ID, result, rerr)
}

// decodeMessage reads one JSON-RPC message by its exact member names. encoding/json
// matches struct fields case-insensitively, so {"METHOD": "tools/call"} was served and a
// later "Method" overrode "method": a proxy or a log that reads the member as JSON spells
// it (case-sensitive) would see another call than the one served. Valid JSON that is no
// object is an invalid request (-32600), not a parse error (JSON-RPC 2.0 §5.1's example).
func decodeMessage(body []byte) (rpcMessage, *rpcError) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		if json.Valid(body) {
			return rpcMessage{}, &rpcError{rpcInvalidRequest, "a JSON-RPC message is a JSON object"}
		}
		return rpcMessage{}, &rpcError{rpcParseError, "the body is not a JSON-RPC message"}
	}
	msg := rpcMessage{ID: m["id"], Params: m["params"], Result: m["result"], Error: m["error"]}
	if v, ok := m["jsonrpc"]; ok && json.Unmarshal(v, &msg.JSONRPC) != nil {
		return msg, &rpcError{rpcInvalidRequest, `"jsonrpc" must be "2.0"`}
	}
	if v, ok := m["method"]; ok && json.Unmarshal(v, &msg.Method) != nil {
		return msg, &rpcError{rpcInvalidRequest, `"method" must be a string`}
	}
	return msg, nil
}

func (c *Catalog) dispatch(r *http.Request, id identity.Identity, method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "initialize":
		return initialize(params)
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return map[string]any{"tools": listedTools()}, nil
	case "tools/call":
		return c.callTool(r, id, params)
	}
	// server/discover (SEP-2575) is a later protocol's: "method not found" is what tells
	// its clients to fall back to initialize.
	return nil, &rpcError{rpcMethodNotFound, fmt.Sprintf("method %q is not supported", truncate(method, 64))}
}

// initialize answers the version the client asked for when it is one the server speaks,
// and the newest it speaks otherwise (the client then decides whether to go on).
func initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, &rpcError{rpcInvalidParams, "initialize params must be an object with a protocolVersion"}
	}
	version := ProtocolVersion
	if slices.Contains(serverVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	return initializeResult{
		ProtocolVersion: version,
		// No logging capability: tool calls are audited, not streamed to the client.
		Capabilities: map[string]any{"tools": struct{}{}},
		ServerInfo:   implementation{Name: ServerName, Title: "SyncAssist tool catalogue", Version: "1.0.0"},
		Instructions: serverInstructions,
	}, nil
}

// listedTools are the catalogue's tools by name, as MCP clients commonly list them.
func listedTools() []Tool {
	tools := slices.Clone(Tools())
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools
}

// callTool runs tools/call. An unknown tool is a protocol error (no tool ran, nothing is
// audited); everything a tool says, including refused arguments, is a tool result.
func (c *Catalog) callTool(r *http.Request, id identity.Identity, params json.RawMessage) (any, *rpcError) {
	p, ok := decodeCallParams(params)
	if !ok {
		return nil, &rpcError{rpcInvalidParams, "tools/call params must be an object with a tool name"}
	}
	run, ok := c.runners()[*p.Name]
	i := slices.IndexFunc(Tools(), func(t Tool) bool { return t.Name == *p.Name })
	if !ok || i < 0 {
		return nil, &rpcError{rpcInvalidParams, fmt.Sprintf("unknown tool %q", truncate(*p.Name, 128))}
	}
	return c.handle(r.Context(), id, Tools()[i], run, p), nil
}

// decodeCallParams reads tools/call's params by their exact member names, as
// decodeMessage reads the message: {"NAME": ...} names no tool.
func decodeCallParams(params json.RawMessage) (callParams, bool) {
	var m map[string]json.RawMessage
	var p callParams
	if json.Unmarshal(params, &m) != nil || json.Unmarshal(m["name"], &p.Name) != nil || p.Name == nil {
		return p, false
	}
	p.Arguments = m["arguments"]
	if v, ok := m["_meta"]; ok && json.Unmarshal(v, &p.Meta) != nil {
		return p, false
	}
	return p, true
}

// validID returns id when it is a JSON string or number, the ids JSON-RPC allows a
// request (null is for answers to messages whose id could not be read).
func validID(id json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(id)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
		return t
	}
	return nil
}

func writeRPC(w http.ResponseWriter, status int, id json.RawMessage, result any, rerr *rpcError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: id, Result: result, Error: rerr}
	if rerr == nil && result == nil {
		resp.Result = struct{}{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = jsonEncode(w, resp)
}

// badResponse says what makes msg no JSON-RPC 2.0 response (§5: exactly one of result and
// error; §5.1: an error is an object with an integer code and a string message, as the
// document's JSONRPCMessage says), or "".
func badResponse(msg rpcMessage) string {
	if msg.Error == nil {
		return ""
	}
	if msg.Result != nil {
		return `a response carries "result" or "error", not both`
	}
	var e struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
	}
	if p := bytes.TrimSpace(msg.Error); len(p) == 0 || p[0] != '{' || json.Unmarshal(p, &e) != nil || e.Code == nil || e.Message == nil {
		return `"error" must be an object with an integer "code" and a string "message"`
	}
	return ""
}
