package policy

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// A policy is checked whole before it is stored (Policy.Validate): every bad field is
// named, so the editor can show them all at once.
var ruleIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Classes a rule may name (shared/ai's error classes).
var Classes = []string{"value", "missing", "reference", "duplicate", "permission", "connection", "intermittent",
	"rate_limit", "too_large", "parse", "business_rule", "unknown"}

// MaxPolicyRules bounds a policy.
const MaxPolicyRules = 50

// Validate checks p whole and fills defaults (an auto rule without a mode is shadow).
func (p *Policy) Validate() []syncerror.FieldError {
	var errs []syncerror.FieldError
	add := func(f, m string) { errs = append(errs, syncerror.FieldError{Field: f, Message: m}) }
	if p.Rules == nil || len(p.Rules) > MaxPolicyRules {
		add("rules", fmt.Sprintf("must list 0 to %d rules", MaxPolicyRules))
	}
	seen := map[string]bool{}
	for i := range p.Rules {
		r := &p.Rules[i]
		at := fmt.Sprintf("rules[%d]", i)
		if !ruleIDPattern.MatchString(r.ID) {
			add(at+".id", "must be 1 to 64 lower-case letters, digits, '-' or '_'")
		} else if seen[r.ID] {
			add(at+".id", "names a rule twice")
		}
		seen[r.ID] = true
		switch r.Apply {
		case ApplyAuto:
			if r.Mode == "" {
				r.Mode = ModeShadow
			}
			if r.Mode != ModeShadow && r.Mode != ModeEnforce {
				add(at+".mode", "must be shadow or enforce")
			}
		case ApplyOperator, ApplyApprover, ApplyTwoApprovers:
			if r.Mode != "" {
				add(at+".mode", "is only for apply auto")
			}
		default:
			add(at+".apply", "must be auto, operator, approver or two_approvers")
		}
		errs = append(errs, r.Match.validate(at+".match")...)
	}
	return errs
}

func (m PolicyMatch) validate(at string) []syncerror.FieldError {
	var errs []syncerror.FieldError
	add := func(f, msg string) { errs = append(errs, syncerror.FieldError{Field: at + "." + f, Message: msg}) }
	for i, c := range m.Classes {
		if !slices.Contains(Classes, c) {
			add(fmt.Sprintf("classes[%d]", i), "must be one of "+strings.Join(Classes, ", "))
		}
	}
	for i, g := range m.Fields {
		bare := strings.TrimPrefix(g, "!")
		if _, err := path.Match(bare, ""); err != nil || bare == "" || len(g) > 256 || syncerror.HasControl(g) {
			add(fmt.Sprintf("fields[%d]", i), "must be a field glob ('*', '?', '[...]'), '!' to exclude, @sensitive or @proposed")
		}
	}
	for i, s := range m.Systems {
		if s == "" || len(s) > 128 || syncerror.HasControl(s) {
			add(fmt.Sprintf("systems[%d]", i), "must be a system name")
		}
	}
	if m.MinConfidence != nil && (*m.MinConfidence < 0 || *m.MinConfidence > 1) {
		add("minConfidence", "must be between 0 and 1")
	}
	if m.MinApprovals != nil && *m.MinApprovals < 0 {
		add("minApprovals", "must not be negative")
	}
	if m.MaxAmount != nil && *m.MaxAmount < 0 {
		add("maxAmount", "must not be negative")
	}
	return errs
}
