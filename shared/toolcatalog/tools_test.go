package toolcatalog_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

func TestMCPDiscover(t *testing.T) {
	registry, err := toolcatalog.ParseExternalTools([]byte(`{
		"*":    [{"name": "rates.quote", "description": "Quote carrier rates",
		          "inputSchema": {"type": "object", "properties": {"weightKg": {"type": "number"}}}}],
		"acme": [{"name": "pim.lookup_item", "description": "Look up an item in the PIM"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.External = registry })
	names := func(c caller) []string {
		d := decode[toolcatalog.Discovery](t, e.rawCall(t, c, toolcatalog.ToolMCPDiscover, map[string]any{}, nil).Result.StructuredContent)
		var out []string
		for _, tool := range d.Tools {
			out = append(out, tool.Server+"|"+tool.Tool+"|"+string(tool.InputSchema))
		}
		if d.Count != len(d.Tools) {
			t.Errorf("count %d for %d tools", d.Count, len(d.Tools))
		}
		return out
	}
	if got := names(operatorA); !slices.Equal(got, []string{`pim|lookup_item|{"type":"object"}`,
		`rates|quote|{"type":"object","properties":{"weightKg":{"type":"number"}}}`}) {
		t.Errorf("acme discovers %v", got)
	}
	if got := names(operatorB); !slices.Equal(got, []string{`rates|quote|{"type":"object","properties":{"weightKg":{"type":"number"}}}`}) {
		t.Errorf("globex discovers %v", got)
	}
	t.Run("no source configured", func(t *testing.T) {
		e := newEnv(t)
		d := decode[toolcatalog.Discovery](t, e.rawCall(t, operatorA, toolcatalog.ToolMCPDiscover, nil, nil).Result.StructuredContent)
		if d.Count != 0 || d.Tools == nil {
			t.Errorf("discovery %+v", d)
		}
	})
}

func TestExternalToolConfiguration(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"upper case", `{"*":[{"name":"Rates.Quote"}]}`, "must match"},
		{"no server", `{"*":[{"name":"quote"}]}`, "must match"},
		{"reserved server", `{"*":[{"name":"service.governance_check"}]}`, "reserved"},
		{"twice for a tenant", `{"*":[{"name":"a.b"}],"acme":[{"name":"a.b"}]}`, "registered twice"},
		{"schema not an object", `{"*":[{"name":"a.b","inputSchema":{"type":"array"}}]}`, `"type": "object"`},
		{"schema not JSON object", `{"*":[{"name":"a.b","inputSchema":[1]}]}`, "must be a JSON object"},
		{"unknown member", `{"*":[{"name":"a.b","handler":"x"}]}`, "unknown field"},
		{"bad tenant id", `{"ACME!":[{"name":"a.b"}]}`, "tenant id"},
		{"not an object", `[1,2]`, "configuration is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := toolcatalog.ParseExternalTools([]byte(tc.doc))
			if !errors.Is(err, toolcatalog.ErrInvalidExternalTool) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if s, err := toolcatalog.ParseExternalTools([]byte("  ")); err != nil {
		t.Errorf("empty configuration: %v", err)
	} else if tools, _ := s.ExternalTools(context.Background(), "acme"); len(tools) != 0 {
		t.Errorf("empty configuration lists %v", tools)
	}
}

type tenants map[string]tenant.Config

func (ts tenants) Get(_ context.Context, id string) (tenant.Config, error) {
	c, ok := ts[id]
	if !ok {
		return tenant.Config{}, tenant.ErrNotFound
	}
	return c, nil
}

func TestTenantExternalTools(t *testing.T) {
	src := toolcatalog.TenantExternalTools{Tenants: tenants{
		"acme":   {ID: "acme", Settings: map[string]string{toolcatalog.KeyExternalTools: `[{"name":"pim.lookup_item","description":"Look up"}]`}},
		"globex": {ID: "globex", Settings: map[string]string{}},
		"broken": {ID: "broken", Settings: map[string]string{toolcatalog.KeyExternalTools: `[{"name":"Bad"}]`}},
	}}
	ctx := context.Background()
	if got, err := src.ExternalTools(ctx, "acme"); err != nil || len(got) != 1 || got[0].Name != "pim.lookup_item" {
		t.Errorf("acme: %v %v", got, err)
	}
	if got, err := src.ExternalTools(ctx, "globex"); err != nil || len(got) != 0 {
		t.Errorf("globex: %v %v", got, err)
	}
	if _, err := src.ExternalTools(ctx, "broken"); !errors.Is(err, toolcatalog.ErrInvalidExternalTool) {
		t.Errorf("broken: %v", err)
	}
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.External = src })
	res := e.rawCall(t, caller{"broken", "user:x", []string{identity.RoleAdmin}}, toolcatalog.ToolMCPDiscover, map[string]any{}, nil)
	if !res.Result.IsError || !strings.Contains(string(res.body), "temporarily_unavailable") {
		t.Errorf("a broken setting: %s", res.body)
	}
}
