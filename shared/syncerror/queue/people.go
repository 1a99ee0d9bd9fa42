package queue

import (
	"context"
	"slices"

	"github.com/syncassist/syncassist/shared/identity"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Who sees whom on a row (issue 36 §6). The audit log records a person as the record policy
// masks them, followed by a keyed pseudonym, and no role reads it otherwise: approvers and
// admins read the log, nobody reads an address in it. The queue shows the people on a row
// (history actors, note authors, retry attempts' actors, the assignee, and the person an
// assignment names) the same way to every role that reads the queue — operators,
// approvers, admins and embedded sessions alike — so the two surfaces name one person with
// one name and reading both ties no pseudonym to an address. Service actors the policy
// leaves as they are ("webhook:…", "policy:…", "reconcile") stay readable. The viewer's own
// entries carry you: true instead, so an operator still finds their own work.

// ActorNamer shows an actor as the audit log records it (audit.Log.ShownActor).
type ActorNamer interface {
	ShownActor(ctx context.Context, tenantID, name string) string
}

// people names the people on rows for one viewer. Without an ActorNamer (an Auditor that
// is not the audit log, in tests of other behaviour) names are shown as stored.
type people struct {
	ctx    context.Context
	viewer identity.Identity
	namer  ActorNamer
}

// peopleFor is the naming of the request ctx's viewer, through o.Audit when it is the log.
func (o *Service) peopleFor(ctx context.Context) people {
	viewer, _ := identity.FromContext(ctx)
	namer, _ := o.Audit.(ActorNamer)
	return people{ctx: ctx, viewer: viewer, namer: namer}
}

// ShownActor is raw as the audit log shows it to the viewer of ctx.
func (o *Service) ShownActor(ctx context.Context, raw string) string {
	return o.peopleFor(ctx).name(raw)
}

// name is raw as the audit log shows it.
func (p people) name(raw string) string {
	if raw == "" || p.namer == nil {
		return raw
	}
	return p.namer.ShownActor(p.ctx, p.viewer.TenantID, raw)
}

// you reports whether raw names the viewer (their subject or one of its aliases).
func (p people) you(raw string) bool { return p.viewer.Is(raw) }

// triage is the row's assignee as the viewer may see it.
func (p people) triage(t syncerror.Triage) syncerror.TriageView {
	v := syncerror.TriageViewOf(t)
	v.AssignedToYou = p.you(t.Assignee)
	v.Assignee = p.name(t.Assignee)
	return v
}

// history returns a copy of h with every person shown; an assignment's note names the
// person assigned, so it is shown too.
func (p people) history(h []syncerror.HistoryEntry) []syncerror.HistoryEntry {
	out := slices.Clone(h)
	for i := range out {
		e := &out[i]
		if e.Action == "assigned" || e.Action == "unassigned" {
			e.Note = p.name(e.Note)
		}
		e.You = p.you(e.Actor)
		e.Actor = p.name(e.Actor)
	}
	return out
}

// notes returns a copy of ns with their authors shown.
func (p people) notes(ns []syncerror.Note) []syncerror.Note {
	return showActors(p, ns, func(n *syncerror.Note) (*string, *bool) { return &n.Actor, &n.You })
}

// attempts returns a copy of as with their actors shown.
func (p people) attempts(as []syncerror.RetryAttempt) []syncerror.RetryAttempt {
	return showActors(p, as, func(a *syncerror.RetryAttempt) (*string, *bool) { return &a.Actor, &a.You })
}

// showActors returns a copy of xs with each one's actor shown and marked when it is the viewer.
func showActors[T any](p people, xs []T, actor func(*T) (*string, *bool)) []T {
	out := slices.Clone(xs)
	for i := range out {
		name, you := actor(&out[i])
		*you = p.you(*name)
		*name = p.name(*name)
	}
	return out
}
