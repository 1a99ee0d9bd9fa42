package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/dlp"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Who may apply a fix, by the rule that matches it (ARCHITECTURE.md "Approval policy").
const (
	ApplyAuto         = "auto"
	ApplyOperator     = "operator"
	ApplyApprover     = "approver"
	ApplyTwoApprovers = "two_approvers"
	ModeShadow        = "shadow"
	ModeEnforce       = "enforce"
)

// PolicyMatch is what a rule matches; an empty list or a nil bound matches anything.
type PolicyMatch struct {
	Classes []string `json:"classes,omitempty"`
	// Fields are globs over the fix's field paths ("*", "ship*", "address.*"); a glob that
	// starts with "!" excludes. "@sensitive" stands for every field the DLP's
	// SensitiveField takes for a secret, credential, card, national id, phone or financial
	// identifier (IBAN, bank account, routing number, SWIFT/BIC, tax or VAT id);
	// "@proposed" for the fields the proposal itself changes, so that an edit adding a
	// field falls through to a later rule. Every field of the fix must be included (when
	// any glob includes) and none excluded.
	Fields        []string `json:"fields,omitempty"`
	Systems       []string `json:"systems,omitempty"`
	MinConfidence *float64 `json:"minConfidence,omitempty"`
	MinApprovals  *int     `json:"minApprovals,omitempty"`
	// MaxAmount bounds every number the fix holds, before and after, whatever its JSON
	// type: 99999999 and "99999999" are the same amount (see FactsOf).
	MaxAmount *float64 `json:"maxAmount,omitempty"`
}

// PolicyRule names who may apply the fixes it matches.
type PolicyRule struct {
	ID    string      `json:"id"`
	Match PolicyMatch `json:"match"`
	Apply string      `json:"apply"`
	Mode  string      `json:"mode,omitempty"`
}

// Policy is a tenant's approval policy: ordered rules, the first that matches wins.
type Policy struct {
	Version int          `json:"version"`
	Rules   []PolicyRule `json:"rules"`
}

// SensitiveFields is the field glob that stands for the DLP's sensitive field names.
const SensitiveFields = "@sensitive"

// ProposedFields is the field glob that stands for the fields the proposal itself
// changes: an edit is judged as what it writes, and a field it adds is none of them.
const ProposedFields = "@proposed"

// DefaultPolicy is what onboarding writes and what a tenant without a policy gets: value
// and missing fixes on fields the proposal changes and that are not sensitive are for
// operators, everything else (an edit that adds a field among it) for approvers, nothing
// automatic.
func DefaultPolicy() Policy {
	return Policy{Rules: []PolicyRule{
		{ID: "operator-value-fixes", Match: PolicyMatch{Classes: []string{"value", "missing"},
			Fields: []string{ProposedFields, "!" + SensitiveFields}}, Apply: ApplyOperator},
		{ID: "approver-everything-else", Apply: ApplyApprover},
	}}
}

// previousDefaultRules are the rules DefaultPolicy had before the operator's rule took only
// the proposal's fields. A tenant still holding them never changed its default, and gets
// the default as it is now (see Policies.Get): otherwise an operator of every tenant
// onboarded before could still turn a proposal into a write of other fields.
const previousDefaultRules = `[{"id":"operator-value-fixes","match":{"classes":["value","missing"],"fields":["!@sensitive"]},"apply":"operator"},{"id":"approver-everything-else","match":{},"apply":"approver"}]`

// Decision is who may apply a row's fix and why, shown before anyone clicks.
type Decision struct {
	Apply  string `json:"apply"`
	RuleID string `json:"ruleId"`
	Reason string `json:"reason"`
	Mode   string `json:"mode,omitempty"`
}

// Who can approve a row, as the queue's chip and filter say it to the viewer.
const (
	DeciderYou          = "you"
	DeciderApprover     = "approver"
	DeciderTwoApprovers = "two_approvers"
)

// Deciders lists the values of the queue's decider filter.
var Deciders = []string{DeciderYou, DeciderApprover, DeciderTwoApprovers}

// Decider says who can approve, for a viewer who is an approver or not, the fix of a row in
// status s that d decides: DeciderTwoApprovers for a two-approver rule (whoever looks),
// DeciderYou when the viewer may approve it alone, else DeciderApprover (an escalated row
// waits for an approver whatever its rule). "" for a row nobody decides now.
func (d Decision) Decider(s syncerror.Status, approver bool) string {
	switch {
	case s != syncerror.StatusPending && s != syncerror.StatusEscalated:
		return ""
	case d.Apply == ApplyTwoApprovers:
		return DeciderTwoApprovers
	case approver:
		return DeciderYou
	case s == syncerror.StatusEscalated:
		return DeciderApprover
	case d.Apply == ApplyOperator || d.Apply == ApplyAuto:
		return DeciderYou
	}
	return DeciderApprover
}

// FixFacts is what a rule is matched against.
type FixFacts struct {
	Class  string
	Fields []string
	// Proposed are the paths the proposal itself changes (ProposedFields).
	Proposed   []string
	System     string
	Confidence float64
	Approvals  int
	Amount     *float64
}

// FactsOf reads the facts of a row's fix: the edited fix when given, else the proposal's.
// Its amount is the largest magnitude of any number the fix holds, before or after, nested
// or not, as a JSON number (float64, json.Number, any Go number) or as a numeric string:
// "99999999" is held to maxAmount as 99999999 is, since a target may take either.
func FactsOf(c syncerror.Claim, fix []syncerror.FieldChange) FixFacts {
	f := FixFacts{System: systemOf(c)}
	if c.Proposal != nil {
		f.Class, f.Confidence = c.Proposal.Class, c.Proposal.Confidence
		if c.Proposal.Learned != nil {
			f.Approvals = c.Proposal.Learned.Approvals
		}
		for _, ch := range c.Proposal.Fix {
			f.Proposed = append(f.Proposed, ch.Path)
		}
	}
	for _, ch := range fix {
		f.Fields = append(f.Fields, ch.Path)
		for _, v := range []any{ch.Before, ch.After} {
			eachAmount(v, func(n float64) {
				if f.Amount == nil || n > *f.Amount {
					f.Amount = &n
				}
			})
		}
	}
	return f
}

// systemOf is the system a row's error came from: its externalSystem, else the host ERP.
func systemOf(c syncerror.Claim) string {
	if c.Record.ExternalSystem != "" {
		return c.Record.ExternalSystem
	}
	return "host_erp"
}

// Decide returns the first rule matching f; when none does, approvers decide.
func (p Policy) Decide(f FixFacts) Decision {
	for _, r := range p.Rules {
		if why, ok := r.Match.matches(f); ok {
			return Decision{Apply: r.Apply, RuleID: r.ID, Mode: r.Mode, Reason: "rule " + r.ID + why}
		}
	}
	return Decision{Apply: ApplyApprover, Reason: "no rule matches this fix; approvers decide"}
}

func (m PolicyMatch) matches(f FixFacts) (string, bool) {
	var why []string
	if len(m.Classes) > 0 {
		if !slices.Contains(m.Classes, f.Class) {
			return "", false
		}
		why = append(why, "class "+f.Class)
	}
	// A fix with no field yet (the AI proposed none; a person will enter it) matches any
	// globs, and the approve judges the fields entered; but none of them can be one the
	// proposal changes.
	if len(m.Fields) > 0 && len(f.Fields) == 0 && onlyProposedIncluded(m.Fields) {
		return "", false
	}
	if len(m.Fields) > 0 && len(f.Fields) > 0 {
		if !fieldsMatch(m.Fields, f) {
			return "", false
		}
		why = append(why, "fields "+strings.Join(f.Fields, ", "))
	}
	if len(m.Systems) > 0 {
		if !slices.Contains(m.Systems, f.System) {
			return "", false
		}
		why = append(why, "system "+f.System)
	}
	if m.MinConfidence != nil {
		if f.Confidence < *m.MinConfidence {
			return "", false
		}
		why = append(why, fmt.Sprintf("confidence %.2f ≥ %.2f", f.Confidence, *m.MinConfidence))
	}
	if m.MinApprovals != nil {
		if f.Approvals < *m.MinApprovals {
			return "", false
		}
		why = append(why, fmt.Sprintf("%d learned approvals ≥ %d", f.Approvals, *m.MinApprovals))
	}
	if m.MaxAmount != nil {
		if f.Amount != nil && *f.Amount > *m.MaxAmount {
			return "", false
		}
		why = append(why, fmt.Sprintf("amounts ≤ %g", *m.MaxAmount))
	}
	if len(why) == 0 {
		return " (matches every fix)", true
	}
	return ": " + strings.Join(why, "; "), true
}

// onlyProposedIncluded reports whether globs include fields by ProposedFields alone.
func onlyProposedIncluded(globs []string) bool {
	proposed := false
	for _, g := range globs {
		switch {
		case g == ProposedFields:
			proposed = true
		case !strings.HasPrefix(g, "!"):
			return false
		}
	}
	return proposed
}

// fieldsMatch: every field of f included by some glob (or by default when every glob
// excludes), none excluded.
func fieldsMatch(globs []string, f FixFacts) bool {
	includes := false
	for _, g := range globs {
		includes = includes || !strings.HasPrefix(g, "!")
	}
	for _, field := range f.Fields {
		in := !includes
		for _, g := range globs {
			neg := strings.HasPrefix(g, "!")
			if globMatch(strings.TrimPrefix(g, "!"), field, f.Proposed) {
				if neg {
					return false
				}
				in = true
			}
		}
		if !in {
			return false
		}
	}
	return true
}

func globMatch(glob, field string, proposed []string) bool {
	switch glob {
	case SensitiveFields:
		return dlp.SensitiveField(field)
	case ProposedFields:
		return slices.Contains(proposed, field)
	}
	ok, err := path.Match(strings.ToLower(glob), strings.ToLower(field))
	return err == nil && ok
}

// Policies reads and changes tenants' approval policies.
type Policies struct{ Docs syncerror.DocStore }

// Get returns the tenant's policy, the default (version 0) when it has none.
func (p Policies) Get(ctx context.Context, tenantID string) (Policy, error) {
	d, err := p.Docs.GetDoc(ctx, tenantID, syncerror.DocPolicy)
	if errors.Is(err, syncerror.ErrNotFound) {
		return DefaultPolicy(), nil
	}
	if err != nil {
		return Policy{}, err
	}
	var out Policy
	if err := json.Unmarshal(d.Body, &out); err != nil {
		return Policy{}, fmt.Errorf("approval policy of %s: %w", tenantID, err)
	}
	if rules, err := json.Marshal(out.Rules); err == nil && string(rules) == previousDefaultRules {
		out.Rules = DefaultPolicy().Rules
	}
	out.Version = d.Version
	return out, nil
}

// Put stores next if the stored policy is at next.Version (0: none stored yet).
// ErrStateChanged when it is not.
func (p Policies) Put(ctx context.Context, tenantID string, next Policy, now time.Time) (Policy, error) {
	defer policyGen.Add(1) // CachedPolicies in this process read it again
	body, err := json.Marshal(Policy{Rules: next.Rules})
	if err != nil {
		return Policy{}, err
	}
	d, err := p.Docs.PutDoc(ctx, tenantID, syncerror.Doc{Key: syncerror.DocPolicy, Version: next.Version, Body: body}, now)
	if err != nil {
		return Policy{}, err
	}
	next.Version = d.Version
	return next, nil
}

// Onboard writes the default policy for a new tenant; a tenant that has one keeps it.
func (p Policies) Onboard(ctx context.Context, tenantID string, now time.Time) error {
	_, err := p.Put(ctx, tenantID, DefaultPolicy(), now)
	if errors.Is(err, syncerror.ErrStateChanged) {
		return nil
	}
	return err
}

// eachAmount calls visit with the magnitude of every number v holds: JSON numbers of any Go
// type, numeric strings, and those nested in objects and lists. A number too large for a
// float64 is +Inf, above every bound.
func eachAmount(v any, visit func(float64)) {
	var n float64
	switch v := v.(type) {
	case float64:
		n = v
	case float32:
		n = float64(v)
	case int:
		n = float64(v)
	case int64:
		n = float64(v)
	case int32:
		n = float64(v)
	case uint64:
		n = float64(v)
	case json.Number:
		f, ok := numericString(v.String())
		if !ok {
			return
		}
		n = f
	case string:
		f, ok := numericString(v)
		if !ok {
			return
		}
		n = f
	case map[string]any:
		for _, e := range v {
			eachAmount(e, visit)
		}
		return
	case []any:
		for _, e := range v {
			eachAmount(e, visit)
		}
		return
	default:
		return
	}
	if math.IsNaN(n) {
		return
	}
	visit(math.Abs(n))
}

// numericPattern is a decimal number as a person or a system writes it in a string: a
// sign, digits (grouped by commas or not), a fraction, an exponent; "01067" too, which a
// numeric field would read as 1067.
var numericPattern = regexp.MustCompile(`^[+-]?(?:\d+|\d{1,3}(?:,\d{3})+)?(?:\.\d+)?(?:[eE][+-]?\d+)?$`)

// numericString reads s as a number when it is one; hex, "Inf", "NaN" and words are not.
func numericString(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if !numericPattern.MatchString(s) || !strings.ContainsAny(s, "0123456789") {
		return 0, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 && !strings.ContainsAny(s[:i], "0123456789") {
		return 0, false // "e5", ".e5": an exponent of nothing
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}
