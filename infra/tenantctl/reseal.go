package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Resealing moves values sealed before each purpose had its own encryption context to
// their purpose's (tenant.Admin.ResealAll). The ops engineer runs it once after upgrading
// and before deploying with the stack's kmsRequirePurpose, which makes the key's Decrypt
// grants require the purpose: "reseal -check" says how many values are left, and fails
// while any are. It needs the key's Decrypt for every purpose (an operator's grant).

// errResealRemaining ends a check that found values still sealed without their purpose.
var errResealRemaining = errors.New("values remain sealed without their purpose")

func (c cli) reseal(ctx context.Context, rest []string) error {
	fs := flag.NewFlagSet("reseal", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "reseal every tenant, in the order of their ids")
	after := fs.String("after", "", "with -all: resume after this tenant (the cursor a stopped run printed)")
	check := fs.Bool("check", false, "count the values still sealed without their purpose, change nothing")
	pos, err := parseInterspersed(fs, rest)
	if err != nil {
		return err
	}
	if c.svc.Admin.Keeper == nil {
		return errors.New("reseal needs the sealing key: set TENANT_SECRETS_KEY_ARN (or LOCAL_SEALING_KEY)")
	}
	switch {
	case *check && len(pos) <= 1 && !*all && *after == "":
		return c.resealCheck(ctx, pos)
	case *all && len(pos) == 0 && !*check:
		return c.resealAll(ctx, *after)
	case len(pos) == 1 && !*all && !*check && *after == "":
		n, err := c.svc.Admin.ResealKinds(ctx, pos[0])
		if err != nil {
			return err
		}
		c.resealed(ctx, pos[0], n)
		return nil
	}
	return fmt.Errorf("usage: tenantctl %s", forms["reseal"].form)
}

// resealAll reseals every tenant after the cursor, printing each tenant's counts and the
// cursor to resume from should the run stop.
func (c cli) resealAll(ctx context.Context, after string) error {
	total, tenants := 0, 0
	cursor, err := c.svc.Admin.ResealAll(ctx, after, func(id string, n tenant.Kinds) error {
		c.resealed(ctx, id, n)
		total, tenants = total+n.Total(), tenants+1
		return nil
	})
	if err != nil {
		if cursor != "" {
			return fmt.Errorf("%w\nstopped; resume with: tenantctl reseal -all -after %s", err, cursor)
		}
		return fmt.Errorf("%w\nstopped before the first tenant was done; run it again", err)
	}
	fmt.Fprintf(c.out, "%d value(s) in %d tenant(s) sealed again under their purposes; 'tenantctl reseal -check' counts what is left\n", total, tenants)
	return nil
}

// resealed prints and audits what was resealed for a tenant: one audit entry per kind of
// value. The values are sealed again already, so a failed audit write is logged and the
// run goes on (as the settings service does).
func (c cli) resealed(ctx context.Context, id string, n tenant.Kinds) {
	fmt.Fprintf(c.out, "%s: %d value(s) sealed again under their purposes%s\n", id, n.Total(), kindsText(n))
	if c.svc.Audit == nil {
		return
	}
	for _, p := range n.Sorted() {
		err := c.svc.Audit.Write(ctx, audit.Entry{Actor: c.who(id), ActionType: audit.TypeSettings, ActionKey: "settings.secret_reseal",
			Result: audit.ResultSuccess, Resource: "secret/" + string(p), Details: map[string]any{"purpose": string(p), "resealed": n[p]}})
		if err != nil {
			httpapi.Logger(ctx).Error("reseal not audited", "tenant", id, "purpose", string(p), "error", err)
			fmt.Fprintf(c.out, "warning: %s %s not audited: %v\n", id, p, err)
		}
	}
}

// resealCheck counts the values still sealed without their purpose, of one tenant or all.
func (c cli) resealCheck(ctx context.Context, ids []string) error {
	total := 0
	each := func(id string, n tenant.Kinds) {
		if n.Total() > 0 {
			fmt.Fprintf(c.out, "%s: %d value(s) sealed without their purpose%s\n", id, n.Total(), kindsText(n))
		}
		total += n.Total()
	}
	if len(ids) == 1 {
		n, err := c.svc.Admin.Pending(ctx, ids[0])
		if err != nil {
			return err
		}
		each(ids[0], n)
	} else if err := c.svc.Admin.PendingAll(ctx, each); err != nil {
		return err
	}
	if total > 0 {
		return fmt.Errorf("%d %w: run 'tenantctl reseal -all' before deploying with kmsRequirePurpose", total, errResealRemaining)
	}
	fmt.Fprintln(c.out, "0 values sealed without their purpose: the key's grants can require the purpose (kmsRequirePurpose)")
	return nil
}

// kindsText is ": ingest 1, connectors 2", or nothing when n counts nothing.
func kindsText(n tenant.Kinds) string {
	parts := make([]string, 0, len(n))
	for _, p := range n.Sorted() {
		parts = append(parts, fmt.Sprintf("%s %d", p, n[p]))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}
