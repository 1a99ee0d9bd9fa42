package main

import (
	"context"
	"fmt"
	"maps"

	"github.com/syncassist/syncassist/shared/settings"
)

// alias sets the tenant's own name NAME for SYSTEM, or with no system removes it, through
// the settings service (the API's validation and audit).
func (c cli) alias(ctx context.Context, id string, args []string) error {
	svc := settings.Aliases{Service: c.svc}
	v, err := svc.Get(ctx, id)
	if err != nil {
		return err
	}
	next := maps.Clone(v.Aliases)
	name := args[0]
	if len(args) > 1 {
		next[name] = args[1]
	} else if _, ok := next[name]; !ok {
		return fmt.Errorf("%s has no alias %q of its own (defaults cannot be removed, only overridden)", id, name)
	} else {
		delete(next, name)
	}
	if _, err := svc.Put(ctx, c.who(id), next); err != nil {
		return err
	}
	if len(args) > 1 {
		fmt.Fprintf(c.out, "%s: %q resolves to %s\n", id, name, args[1])
	} else {
		fmt.Fprintf(c.out, "%s: %q removed\n", id, name)
	}
	return nil
}

// aliases prints the system names in force for the tenant, the defaults marked.
func (c cli) aliases(ctx context.Context, id string) error {
	v, err := settings.Aliases{Service: c.svc}.Get(ctx, id)
	if err != nil {
		return err
	}
	for _, e := range v.Entries {
		mark := ""
		if e.Default {
			mark = " (default)"
		}
		fmt.Fprintf(c.out, "%-40q → %s%s\n", e.Name, e.System, mark)
	}
	return nil
}
