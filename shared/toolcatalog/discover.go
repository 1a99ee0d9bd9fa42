package toolcatalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/tenant"
)

// ExternalTool is a tool of an external MCP server that the gateway exposes to a tenant,
// named "<server>.<tool>".
type ExternalTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// ExternalTools gives the external tools registered for a tenant.
type ExternalTools interface {
	ExternalTools(ctx context.Context, tenantID string) ([]ExternalTool, error)
}

// externalNamePattern is "<server>.<tool>": lower-case, the server without dots.
var externalNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*\.[a-z0-9][a-z0-9_.-]*$`)

// ErrInvalidExternalTool is wrapped by the errors of configurations that cannot be served.
var ErrInvalidExternalTool = errors.New("toolcatalog: invalid external tool")

// Limits of a configured external tool, so that one tenant's configuration cannot bloat
// every discovery answer.
const (
	maxExternalNameLen        = 128
	maxExternalDescriptionLen = 2048
	maxExternalSchemaBytes    = 16 << 10
)

// ValidateExternalTool checks t and returns it normalised: the input schema defaults to
// {"type": "object"} and must be a JSON object of type object. The server "service" is
// reserved for the catalogue's own tools.
func ValidateExternalTool(t ExternalTool) (ExternalTool, error) {
	bad := func(format string, a ...any) (ExternalTool, error) {
		return ExternalTool{}, fmt.Errorf("%w: %q: %s", ErrInvalidExternalTool, truncate(t.Name, maxExternalNameLen), fmt.Sprintf(format, a...))
	}
	switch {
	case len(t.Name) > maxExternalNameLen:
		return bad("name longer than %d characters", maxExternalNameLen)
	case !externalNamePattern.MatchString(t.Name):
		return bad("name must match %s (<server>.<tool>)", externalNamePattern)
	case strings.HasPrefix(t.Name, "service."):
		return bad("server name \"service\" is reserved for the catalogue's own tools")
	case len(t.Description) > maxExternalDescriptionLen:
		return bad("description longer than %d characters", maxExternalDescriptionLen)
	case len(t.InputSchema) > maxExternalSchemaBytes:
		return bad("input schema larger than %d bytes", maxExternalSchemaBytes)
	}
	if len(bytes.TrimSpace(t.InputSchema)) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	var schema map[string]any
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema == nil {
		return bad("input schema must be a JSON object")
	}
	if schema["type"] != "object" {
		return bad(`input schema must have "type": "object"`)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, t.InputSchema); err != nil {
		return bad("input schema must be a JSON object")
	}
	t.InputSchema = compact.Bytes()
	return t, nil
}

// StaticExternalTools is an in-memory ExternalTools: tools per tenant, plus tools every
// tenant gets. Build it with NewStaticExternalTools or ParseExternalTools; it is safe for
// concurrent use because it never changes after construction.
type StaticExternalTools struct {
	shared   []ExternalTool
	byTenant map[string][]ExternalTool
}

var _ ExternalTools = (*StaticExternalTools)(nil)

// AllTenants is the key of tools every tenant gets, in NewStaticExternalTools and in the
// JSON configuration.
const AllTenants = "*"

// NewStaticExternalTools validates every tool and returns the registry. A tenant that is
// listed under its own id and under AllTenants gets both lists; a name may appear once
// per tenant.
func NewStaticExternalTools(byTenant map[string][]ExternalTool) (*StaticExternalTools, error) {
	s := &StaticExternalTools{byTenant: map[string][]ExternalTool{}}
	for tenantID, tools := range byTenant {
		if tenantID != AllTenants && !tenant.ValidID(tenantID) {
			return nil, fmt.Errorf("%w: tenant id %q is not valid", ErrInvalidExternalTool, tenantID)
		}
		valid := make([]ExternalTool, 0, len(tools))
		for _, t := range tools {
			v, err := ValidateExternalTool(t)
			if err != nil {
				return nil, fmt.Errorf("tenant %s: %w", tenantID, err)
			}
			valid = append(valid, v)
		}
		if tenantID == AllTenants {
			s.shared = valid
		} else {
			s.byTenant[tenantID] = valid
		}
	}
	for tenantID, tools := range s.byTenant {
		if name, dup := duplicateName(append(slices.Clone(s.shared), tools...)); dup {
			return nil, fmt.Errorf("%w: tenant %s: %q is registered twice", ErrInvalidExternalTool, tenantID, name)
		}
	}
	if name, dup := duplicateName(s.shared); dup {
		return nil, fmt.Errorf("%w: %q is registered twice", ErrInvalidExternalTool, name)
	}
	return s, nil
}

func duplicateName(tools []ExternalTool) (string, bool) {
	seen := map[string]bool{}
	for _, t := range tools {
		if seen[t.Name] {
			return t.Name, true
		}
		seen[t.Name] = true
	}
	return "", false
}

// ParseExternalTools reads the JSON configuration of external tools, an object keyed by
// tenant id (or "*" for every tenant) whose values are lists of tools:
//
//	{"*":    [{"name": "rates.quote", "description": "Quote carrier rates", "inputSchema": {"type": "object"}}],
//	 "acme": [{"name": "pim.lookup_item", "description": "Look up an item in the PIM"}]}
//
// An empty document (or only whitespace) configures no tools. It is meant for an
// environment variable such as MCP_EXTERNAL_TOOLS.
func ParseExternalTools(doc []byte) (*StaticExternalTools, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return NewStaticExternalTools(nil)
	}
	var byTenant map[string][]ExternalTool
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&byTenant); err != nil {
		return nil, fmt.Errorf("%w: configuration is not {\"<tenant>|*\": [tools]}: %w", ErrInvalidExternalTool, err)
	}
	return NewStaticExternalTools(byTenant)
}

// ExternalTools implements ExternalTools. It returns a copy, sorted by name.
func (s *StaticExternalTools) ExternalTools(_ context.Context, tenantID string) ([]ExternalTool, error) {
	out := append(slices.Clone(s.shared), s.byTenant[tenantID]...)
	for i := range out {
		out[i].InputSchema = slices.Clone(out[i].InputSchema)
	}
	slices.SortFunc(out, func(a, b ExternalTool) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// KeyExternalTools is the tenant setting TenantExternalTools reads: a JSON list of tools,
// e.g. [{"name": "pim.lookup_item", "description": "..."}].
const KeyExternalTools = "mcp.external_tools"

// TenantExternalTools reads each tenant's external tools from its KeyExternalTools setting,
// so they can be changed per tenant without a deployment. A tenant without the setting
// has none; a setting that does not parse is an error (the call answers "temporarily
// unavailable" and the log says why) rather than a silently empty list.
type TenantExternalTools struct {
	Tenants tenant.Reader
}

var _ ExternalTools = TenantExternalTools{}

// ExternalTools implements ExternalTools.
func (t TenantExternalTools) ExternalTools(ctx context.Context, tenantID string) ([]ExternalTool, error) {
	cfg, err := t.Tenants.Get(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("tenant %s: %w", tenantID, err)
	}
	setting := strings.TrimSpace(cfg.Settings[KeyExternalTools])
	if setting == "" {
		return []ExternalTool{}, nil
	}
	var tools []ExternalTool
	dec := json.NewDecoder(strings.NewReader(setting))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tools); err != nil {
		return nil, fmt.Errorf("%w: tenant %s: setting %s is not a JSON list of tools: %w",
			ErrInvalidExternalTool, tenantID, KeyExternalTools, err)
	}
	s, err := NewStaticExternalTools(map[string][]ExternalTool{tenantID: tools})
	if err != nil {
		return nil, err
	}
	return s.ExternalTools(ctx, tenantID)
}

// DiscoveredTool is one external tool in mcp_discover's answer.
type DiscoveredTool struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Discovery is mcp_discover's answer.
type Discovery struct {
	Tools []DiscoveredTool `json:"tools"`
	Count int              `json:"count"`
}

func (c *Catalog) mcpDiscover(call *toolCall, _ json.RawMessage) (any, error) {
	out := Discovery{Tools: []DiscoveredTool{}}
	if c.External == nil {
		call.details["count"] = 0
		return out, nil
	}
	tools, err := c.External.ExternalTools(call.ctx, call.id.TenantID)
	if err != nil {
		return nil, unavailable("external tools", err)
	}
	for _, t := range tools {
		// A source that is not StaticExternalTools may hand over anything; what does not
		// validate is left out rather than shown to an agent.
		v, err := ValidateExternalTool(t)
		if err != nil {
			continue
		}
		server, tool, _ := strings.Cut(v.Name, ".")
		out.Tools = append(out.Tools, DiscoveredTool{Name: v.Name, Server: server, Tool: tool,
			Description: v.Description, InputSchema: v.InputSchema})
	}
	slices.SortFunc(out.Tools, func(a, b DiscoveredTool) int { return strings.Compare(a.Name, b.Name) })
	out.Count = len(out.Tools)
	call.details["count"] = out.Count
	return out, nil
}
