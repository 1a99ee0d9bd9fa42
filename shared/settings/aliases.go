package settings

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// AliasesView is a tenant's system names (issue 33 §4): the names its hosts send for its
// systems ("Business Central" for erp2). Aliases are the tenant's own, as an admin set them;
// Defaults the built-in ones; Entries every name in force, the tenant's over a default of
// the same name (any case), sorted by name.
type AliasesView struct {
	Aliases  map[string]string `json:"aliases"`
	Defaults map[string]string `json:"defaults"`
	Entries  []AliasEntry      `json:"entries"`
	// Systems are the systems a name may resolve to.
	Systems []connector.System `json:"systems"`
}

// AliasEntry is one name in force and the system it resolves to; Default marks a built-in
// one (which an alias of the same name overrides).
type AliasEntry struct {
	Name    string           `json:"name"`
	System  connector.System `json:"system"`
	Default bool             `json:"default"`
}

// AliasesOf is the alias view of c.
func AliasesOf(c tenant.Config) AliasesView {
	v := AliasesView{Aliases: map[string]string{}, Defaults: tenant.DefaultSystemAliases(), Entries: []AliasEntry{},
		Systems: connector.Systems}
	maps.Copy(v.Aliases, c.SystemAliases)
	for name, sys := range c.SystemAliasMap() {
		_, own := c.SystemAliases[name]
		v.Entries = append(v.Entries, AliasEntry{Name: name, System: connector.System(sys), Default: !own})
	}
	slices.SortFunc(v.Entries, func(a, b AliasEntry) int { return strings.Compare(tenant.AliasKey(a.Name), tenant.AliasKey(b.Name)) })
	return v
}

// Aliases serves a tenant's system names with the settings service: Reader reads them
// (the function's projected read of plain attributes; nil: the service's store).
type Aliases struct {
	*Service
	Reader tenant.Reader
}

// Get returns the tenant's system names.
func (s Aliases) Get(ctx context.Context, tenantID string) (AliasesView, error) {
	var r tenant.Reader = s.Admin.Store
	if s.Reader != nil {
		r = s.Reader
	}
	c, err := r.Get(ctx, tenantID)
	if err != nil {
		return AliasesView{}, err
	}
	return AliasesOf(c), nil
}

// PutAliases replaces the tenant's own system names, validated whole (nothing changes on a
// refusal), and audits the change with the sets before and after.
func (s Aliases) Put(ctx context.Context, who identity.Identity, aliases map[string]string) (AliasesView, error) {
	if aliases == nil {
		return AliasesView{}, &InvalidError{Fields: []FieldError{{"aliases",
			`is required: an object of names as hosts send them to systems, such as {"Business Central": "erp2"} ({} removes the tenant's own)`}}}
	}
	before, err := s.Admin.SetSystemAliases(ctx, who.TenantID, aliases)
	var ae *tenant.AliasError
	if errors.As(err, &ae) {
		return AliasesView{}, aliasInvalid(ae)
	}
	if err != nil {
		return AliasesView{}, err
	}
	if before == nil {
		before = map[string]string{}
	}
	s.audit(ctx, who, "settings.system_aliases", "system-aliases", map[string]any{"before": before, "after": aliases})
	// Read the change back from the store itself: a cached reader may not have it yet.
	c, err := s.Admin.Store.Get(ctx, who.TenantID)
	if err != nil {
		return AliasesView{}, err
	}
	return AliasesOf(c), nil
}

// aliasInvalid names each refused alias as the field aliases.<name>.
func aliasInvalid(ae *tenant.AliasError) *InvalidError {
	inv := &InvalidError{}
	for _, name := range slices.Sorted(maps.Keys(ae.Problems)) {
		field := "aliases"
		if name != "" {
			field += "." + name
		}
		inv.Fields = append(inv.Fields, FieldError{field, ae.Problems[name]})
	}
	return inv
}

// GetHandler is GET /api/settings/system-aliases.
func (s Aliases) GetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := s.Get(r.Context(), caller(r).TenantID)
		if err != nil {
			writeError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, v)
	})
}

// PutHandler is PUT /api/settings/system-aliases: {"aliases": {"Business Central": "erp2"}}.
func (s Aliases) PutHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Aliases map[string]string `json:"aliases"`
		}
		if !decode(w, r, &body) {
			return
		}
		v, err := s.Put(r.Context(), caller(r), body.Aliases)
		if err != nil {
			writeError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, v)
	})
}
