package tenant

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/syncassist/syncassist/shared/connector"
)

// Bounds of a tenant's system aliases: a name is as long as ParseRecord lets an
// externalSystem be, and the set stays small enough for the listing's filter to name
// every alias of one system in a single DynamoDB IN (at most 100 operands).
const (
	MaxSystemAliases   = 50
	MaxSystemAliasName = 128
)

// defaultSystemAliases are the names hosts send for the systems, by the vendors' product
// names and their common spellings (connector.Vendor names the products). The host ERP is
// NetSuite: its names resolve to hosterp, the system key of the host ERP, so an error the
// host reports about itself reads as the host's. A tenant's own aliases override these
// (the same name, any case, to another system) and extend them.
var defaultSystemAliases = map[string]connector.System{
	"Business Central":                        connector.SystemERP2,
	"Dynamics 365 Business Central":           connector.SystemERP2,
	"Microsoft Dynamics 365 Business Central": connector.SystemERP2,
	"BC":              connector.SystemERP2,
	"ShipStation":     connector.SystemShipping,
	"Salesforce":      connector.SystemCRM,
	"SFDC":            connector.SystemCRM,
	"Mailchimp":       connector.SystemMarketing,
	"NetSuite":        connector.SystemHostERP,
	"Oracle NetSuite": connector.SystemHostERP,
}

// DefaultSystemAliases returns the built-in aliases, by name as written.
func DefaultSystemAliases() map[string]string {
	out := make(map[string]string, len(defaultSystemAliases))
	for n, s := range defaultSystemAliases {
		out[n] = string(s)
	}
	return out
}

// AliasKey is the form two names are compared in: trimmed and case-folded, so
// "business central " and "Business Central" are one name.
func AliasKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// SystemAliasMap returns the aliases in force for c: the defaults, with the tenant's own
// replacing any default of the same name (any case), by name as written.
func (c Config) SystemAliasMap() map[string]string {
	out := DefaultSystemAliases()
	for name, sys := range c.SystemAliases {
		for d := range out {
			if AliasKey(d) == AliasKey(name) {
				delete(out, d)
			}
		}
		out[name] = sys
	}
	return out
}

// ResolveSystem resolves a system name as a host sent it (an error's externalSystem) to
// one of the tenant's connector systems: a system key first ("erp2", any case), then the
// tenant's aliases, then the defaults, each compared trimmed and case-insensitively. It
// reports false for a name that resolves to no system (a webshop the service does not
// connect to).
func (c Config) ResolveSystem(name string) (connector.System, bool) {
	key := AliasKey(name)
	if key == "" {
		return "", false
	}
	if s := connector.System(key); s.Known() {
		return s, true
	}
	for n, sys := range c.SystemAliases {
		if AliasKey(n) == key {
			s := connector.System(sys)
			return s, s.Known()
		}
	}
	for n, s := range defaultSystemAliases {
		if AliasKey(n) == key {
			return s, true
		}
	}
	return "", false
}

// NamesOf lists every name that resolves to s for c, as written: the system key, then
// each alias in force by name. The listing filters rows by the names their hosts sent
// (compared as AliasKey).
func (c Config) NamesOf(s connector.System) []string {
	var names []string
	for name, sys := range c.SystemAliasMap() {
		if sys == string(s) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return append([]string{string(s)}, names...)
}

// CheckSystemAliases validates a tenant's whole alias set, returning one message per
// refused name (keyed by the name as given; "" for the set itself). Targets are system
// keys; names are non-empty, without control characters, unique in any case, and not a
// system key themselves (which always resolves to itself).
func CheckSystemAliases(aliases map[string]string) map[string]string {
	bad := map[string]string{}
	if len(aliases) > MaxSystemAliases {
		bad[""] = fmt.Sprintf("at most %d aliases", MaxSystemAliases)
	}
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(aliases)) {
		key := AliasKey(name)
		switch {
		case key == "":
			bad[name] = "a name must not be empty"
		case len([]rune(name)) > MaxSystemAliasName || strings.ContainsFunc(name, unicode.IsControl):
			bad[name] = fmt.Sprintf("a name is at most %d characters, without control characters", MaxSystemAliasName)
		case connector.System(key).Known():
			bad[name] = "is a system key already; it always resolves to itself"
		case seen[key] != "":
			bad[name] = fmt.Sprintf("is the same name as %q (names are compared without case)", seen[key])
		case !connector.System(aliases[name]).Known():
			bad[name] = "must name a system: " + connector.SystemNames()
		}
		seen[key] = name
	}
	return bad
}

// SetSystemAliases replaces the tenant's own system aliases (validated whole; nothing is
// changed on a refusal) and returns the ones it replaced.
func (a Admin) SetSystemAliases(ctx context.Context, id string, aliases map[string]string) (before map[string]string, err error) {
	if bad := CheckSystemAliases(aliases); len(bad) > 0 {
		return nil, &AliasError{Problems: bad}
	}
	next := map[string]string{}
	for n, s := range aliases {
		next[strings.TrimSpace(n)] = s
	}
	err = a.update(ctx, id, func(c *Config) error {
		before, c.SystemAliases = maps.Clone(c.SystemAliases), next
		return nil
	})
	return before, err
}

// AliasError is a refused alias set: the problem of each refused name.
type AliasError struct{ Problems map[string]string }

func (e *AliasError) Error() string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(e.Problems)) {
		parts = append(parts, fmt.Sprintf("%q %s", n, e.Problems[n]))
	}
	return "system aliases: " + strings.Join(parts, "; ")
}
