package toolcatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/jsonvalue"
)

// Decisions of governance_check, from the most permissive.
const (
	DecisionAllow           = "allow"
	DecisionAllowWithDrops  = "allow_with_drops"
	DecisionRequireApproval = "require_approval"
	DecisionDeny            = "deny"
)

func decisionRank(d string) int {
	return slices.Index([]string{DecisionAllow, DecisionAllowWithDrops, DecisionRequireApproval, DecisionDeny}, d)
}

// Reason is one finding of governance_check. Code is stable; Message is for the model.
type Reason struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Fields  []string `json:"fields,omitempty"`
	Owner   string   `json:"owner,omitempty"`
	Policy  string   `json:"policy,omitempty"`
}

// Finding is a DLP finding as the tools report it: never the value, only its type, where
// it sits and a masked sample.
type Finding struct {
	Type       string  `json:"type"`
	Path       string  `json:"path"`
	Sample     string  `json:"sample"`
	Confidence float64 `json:"confidence"`
}

// TypeCount is how many findings of one type a scan reported. Counts are a list, not an
// object keyed by type: a key such as aws_secret_access_key would make the record policy
// take its count for the secret.
type TypeCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

func countsOf(r dlp.Result) []TypeCount {
	counts := r.Counts()
	out := make([]TypeCount, 0, len(counts))
	for _, t := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, TypeCount{t, counts[t]})
	}
	return out
}

func findingsOf(r dlp.Result) []Finding {
	out := make([]Finding, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = Finding{Type: f.Type, Path: f.Path, Sample: f.Sample, Confidence: f.Confidence}
	}
	return out
}

// FieldOwnership is what the manifest says about one field of the proposed write.
type FieldOwnership struct {
	Field    string `json:"field"`
	Owner    string `json:"owner,omitempty"`
	Policy   string `json:"policy,omitempty"`
	Conflict bool   `json:"conflict"`
}

// GovernanceResult is governance_check's answer. Nothing is executed, recorded as a
// rejection or loop, or alerted: the check only predicts what the guarded write would do.
type GovernanceResult struct {
	Decision  string   `json:"decision"`
	Executed  bool     `json:"executed"`
	Reasons   []Reason `json:"reasons"`
	Evaluated struct {
		// Shape is "write" for {entity, fields, ...}, "other" for any other object.
		Shape        string   `json:"shape"`
		Entity       string   `json:"entity,omitempty"`
		RecordID     string   `json:"recordId,omitempty"`
		Operation    string   `json:"operation,omitempty"`
		SourceSystem string   `json:"sourceSystem,omitempty"`
		TargetSystem string   `json:"targetSystem,omitempty"`
		UserID       string   `json:"userId,omitempty"`
		Fields       []string `json:"fields"`
	} `json:"evaluated"`
	Ownership struct {
		Checked bool             `json:"checked"`
		Fields  []FieldOwnership `json:"fields"`
		Dropped []string         `json:"dropped"`
	} `json:"ownership"`
	Loop struct {
		Checked           bool   `json:"checked"`
		Window            string `json:"window"`
		Detected          bool   `json:"detected"`
		BreakingCondition string `json:"breakingCondition,omitempty"`
	} `json:"loop"`
	DLP struct {
		Policy   string      `json:"policy"`
		Blocked  bool        `json:"blocked"`
		Counts   []TypeCount `json:"counts"`
		Findings []Finding   `json:"findings"`
	} `json:"dlp"`
}

type governanceArgs struct {
	Input        json.RawMessage `json:"input"`
	SourceSystem string          `json:"sourceSystem"`
	TargetSystem string          `json:"targetSystem"`
	UserID       string          `json:"userId"`
}

// proposedWrite is the shape governance_check interprets: {"entity": "customer",
// "recordId": "C-1", "fields": {...}, "operation": "update"}. recordId may be a string or
// a number. sourceSystem and targetSystem may sit in input too; the tool's own arguments
// win.
type proposedWrite struct {
	Entity       string
	RecordID     string
	Operation    string
	SourceSystem string
	TargetSystem string
	Fields       map[string]any
}

func parseProposedWrite(raw json.RawMessage) (proposedWrite, bool) {
	// Numbers as sent: the ledger hashes what was written digit for digit (1.50 is not the
	// float64's 1.5), and a numeric record id is the record's (12345678901234567891, not
	// ...7000).
	var m map[string]any
	if jsonvalue.Unmarshal(raw, &m) != nil {
		return proposedWrite{}, false
	}
	var w proposedWrite
	w.Entity, _ = m["entity"].(string)
	w.Operation, _ = m["operation"].(string)
	w.SourceSystem, _ = m["sourceSystem"].(string)
	w.TargetSystem, _ = m["targetSystem"].(string)
	switch id := m["recordId"].(type) {
	case string:
		w.RecordID = id
	case json.Number:
		w.RecordID = id.String()
	}
	w.Fields, _ = m["fields"].(map[string]any)
	w.Entity, w.RecordID = strings.TrimSpace(w.Entity), strings.TrimSpace(w.RecordID)
	return w, w.Entity != "" && len(w.Fields) > 0
}

func (c *Catalog) governanceCheck(call *toolCall, raw json.RawMessage) (any, error) {
	var args governanceArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	if c.Scanner == nil {
		return nil, unavailable("governance check", errors.New("no DLP scanner configured"))
	}
	w, isWrite := parseProposedWrite(args.Input)
	out := &GovernanceResult{Decision: DecisionAllow, Reasons: []Reason{}}
	out.Ownership.Fields, out.Ownership.Dropped = []FieldOwnership{}, []string{}
	out.Loop.Window = c.loopWindow().String()
	decide := func(d string, r Reason) {
		if decisionRank(d) > decisionRank(out.Decision) {
			out.Decision = d
		}
		out.Reasons = append(out.Reasons, r)
	}

	source, sourceOK := systemArg(args.SourceSystem, w.SourceSystem)
	target, targetOK := systemArg(args.TargetSystem, w.TargetSystem)
	ev := &out.Evaluated
	ev.Shape, ev.Entity, ev.RecordID, ev.Operation = "other", w.Entity, w.RecordID, w.Operation
	ev.SourceSystem, ev.TargetSystem, ev.UserID = string(source), string(target), args.UserID
	ev.Fields = slices.Sorted(maps.Keys(w.Fields))
	if ev.Fields == nil {
		ev.Fields = []string{}
	}
	for _, s := range []struct {
		name, value string
		ok          bool
	}{{"sourceSystem", string(source), sourceOK}, {"targetSystem", string(target), targetOK}} {
		if s.value != "" && !s.ok {
			decide(DecisionDeny, Reason{Code: "unknown_system", Message: fmt.Sprintf(
				"%s %q is not a system the service writes through; use one of %s", s.name, s.value, systemList())})
		}
	}

	if isWrite {
		ev.Shape = "write"
		if err := c.checkOwnership(call, out, w, source, sourceOK, decide); err != nil {
			return nil, err
		}
		if err := c.checkLoop(call, out, w, source, sourceOK, target, targetOK, decide); err != nil {
			return nil, err
		}
		checkMasked(out, w, decide)
	} else {
		out.Reasons = append(out.Reasons, Reason{Code: "shape_not_recognised", Message: `input is not ` +
			`{"entity": ..., "recordId": ..., "fields": {...}}, so ownership and loop checks did not run; ` +
			`only the DLP scan did`})
	}

	res, err := c.Scanner.ScanJSON(dlp.ConnectorWrite, args.Input)
	if err != nil {
		// The schema guarantees an object, so this is the scanner failing: fail closed.
		return nil, fmt.Errorf("DLP scan of the input: %w", err)
	}
	out.DLP.Policy, out.DLP.Blocked = string(dlp.ConnectorWrite), res.Blocked
	out.DLP.Counts, out.DLP.Findings = countsOf(res), findingsOf(res)
	if res.Blocked {
		decide(DecisionDeny, Reason{Code: "dlp_blocked", Message: "the input carries data no connector write " +
			"may carry (" + res.Reason + "); remove it and check again"})
	} else if len(res.Findings) > 0 {
		out.Reasons = append(out.Reasons, Reason{Code: "dlp_findings_allowed", Message: "the input holds " +
			"contact data (see dlp.findings) that a connector write may carry to the system that owns it"})
	}
	c.auditScan(call, res)

	if out.Decision == DecisionAllow {
		out.Reasons = append(out.Reasons, Reason{Code: "allowed", Message: "nothing checked stands in the way; " +
			"the guarded write still runs every check again when the write happens"})
	}
	call.details["decision"] = out.Decision
	codes := make([]string, len(out.Reasons))
	for i, r := range out.Reasons {
		codes[i] = r.Code
	}
	call.details["reasonCodes"] = codes
	call.details["shape"] = ev.Shape
	if isWrite {
		call.details["entity"] = w.Entity
	}
	if source != "" {
		call.details["sourceSystem"] = string(source)
	}
	if target != "" {
		call.details["targetSystem"] = string(target)
	}
	if args.UserID != "" {
		call.details["onBehalfOf"] = args.UserID
	}
	return out, nil
}

// strictness orders the policies as the guard does: the strictest conflict decides.
func strictness(p governance.Policy) int {
	return slices.Index([]governance.Policy{governance.PolicySourceWins, governance.PolicyRequireApproval,
		governance.PolicyRejectWithAlert}, p)
}

// systemArg picks the tool argument over the value inside input, lower-cased; ok reports
// a known system.
func systemArg(arg, inInput string) (connector.System, bool) {
	v := strings.ToLower(strings.TrimSpace(arg))
	if v == "" {
		v = strings.ToLower(strings.TrimSpace(inInput))
	}
	s := connector.System(v)
	return s, s.Known()
}

func systemList() string {
	names := make([]string, len(connector.Systems))
	for i, s := range connector.Systems {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// checkOwnership predicts the guard's ownership step: per field the field-level entry
// wins over the entity's, a field conflicts when its declared owner is not the source,
// and the strictest policy among the conflicts decides the whole write.
func (c *Catalog) checkOwnership(call *toolCall, out *GovernanceResult, w proposedWrite, source connector.System,
	sourceOK bool, decide func(string, Reason)) error {
	if c.Manifests == nil {
		return unavailable("ownership check", errors.New("no manifest source configured"))
	}
	m, err := c.Manifests.Manifest(call.ctx, call.id.TenantID)
	if err != nil {
		return unavailable("ownership manifest", err)
	}
	out.Ownership.Checked = true
	owners := map[string][]string{} // declared owner → fields, for a source-less check
	type conflict struct {
		field string
		entry governance.Entry
	}
	var conflicts []conflict
	for _, f := range out.Evaluated.Fields {
		fo := FieldOwnership{Field: f}
		if e, ok := m.Owner(w.Entity, f); ok {
			fo.Owner, fo.Policy = string(e.Owner), string(e.Policy)
			owners[fo.Owner] = append(owners[fo.Owner], f)
			if sourceOK && e.Owner != source {
				fo.Conflict = true
				conflicts = append(conflicts, conflict{f, e})
			}
		}
		out.Ownership.Fields = append(out.Ownership.Fields, fo)
	}
	if len(owners) == 0 {
		out.Reasons = append(out.Reasons, Reason{Code: "ownership_clear", Message: fmt.Sprintf(
			"the manifest declares no owner for %s or these fields", w.Entity)})
		return nil
	}
	if !sourceOK {
		if source != "" {
			// Named but unknown: unknown_system has denied the write already.
			return nil
		}
		for _, owner := range slices.Sorted(maps.Keys(owners)) {
			decide(DecisionRequireApproval, Reason{Code: "source_unknown", Owner: owner, Fields: owners[owner],
				Message: fmt.Sprintf("%s owns these fields of %s; name sourceSystem so the check can tell whether "+
					"the write comes from the owner", owner, w.Entity)})
		}
		return nil
	}
	if len(conflicts) == 0 {
		out.Reasons = append(out.Reasons, Reason{Code: "ownership_clear", Message: fmt.Sprintf(
			"%s owns every field it writes here", source)})
		return nil
	}
	strictest := governance.PolicySourceWins
	for _, cf := range conflicts {
		if strictness(cf.entry.Policy) > strictness(strictest) {
			strictest = cf.entry.Policy
		}
	}
	type group struct {
		fields []string
		policy governance.Policy
	}
	byOwner := map[connector.System]*group{}
	for _, cf := range conflicts {
		g := byOwner[cf.entry.Owner]
		if g == nil {
			g = &group{policy: cf.entry.Policy}
			byOwner[cf.entry.Owner] = g
		}
		g.fields = append(g.fields, cf.field)
		if strictness(cf.entry.Policy) > strictness(g.policy) {
			g.policy = cf.entry.Policy
		}
	}
	for _, owner := range slices.Sorted(maps.Keys(byOwner)) {
		fields, policy := byOwner[owner].fields, byOwner[owner].policy
		r := Reason{Owner: string(owner), Fields: fields, Policy: string(policy)}
		switch strictest {
		case governance.PolicyRejectWithAlert:
			r.Code = "ownership_rejected"
			r.Message = fmt.Sprintf("%s owns %s of %s; a write from %s would be refused and alerted "+
				"(reject_with_alert decides the whole write)", owner, strings.Join(fields, ", "), w.Entity, source)
			decide(DecisionDeny, r)
		case governance.PolicyRequireApproval:
			r.Code = "ownership_approval_required"
			r.Message = fmt.Sprintf("%s owns %s of %s; the whole write would be held for an approver",
				owner, strings.Join(fields, ", "), w.Entity)
			decide(DecisionRequireApproval, r)
		default:
			r.Code = "ownership_fields_dropped"
			r.Message = fmt.Sprintf("%s owns %s of %s; those fields would be dropped (source_wins) and the "+
				"rest written", owner, strings.Join(fields, ", "), w.Entity)
			out.Ownership.Dropped = append(out.Ownership.Dropped, fields...)
			decide(DecisionAllowWithDrops, r)
		}
	}
	slices.Sort(out.Ownership.Dropped)
	if strictest == governance.PolicySourceWins && len(out.Ownership.Dropped) == len(out.Evaluated.Fields) {
		decide(DecisionDeny, Reason{Code: "all_fields_dropped", Fields: out.Ownership.Dropped,
			Message: "every field would be dropped, so nothing would be written"})
	}
	return nil
}

// checkLoop predicts the guard's loop step: the write source→target of this record is
// reciprocal when the ledger holds, within the window, a target→source write of it with
// the same payload hash or exactly the same field names.
func (c *Catalog) checkLoop(call *toolCall, out *GovernanceResult, w proposedWrite, source connector.System,
	sourceOK bool, target connector.System, targetOK bool, decide func(string, Reason)) error {
	switch {
	case !sourceOK || !targetOK:
		out.Reasons = append(out.Reasons, Reason{Code: "loop_not_checked",
			Message: "name sourceSystem and targetSystem to check for a reciprocal write"})
		return nil
	case w.RecordID == "":
		out.Reasons = append(out.Reasons, Reason{Code: "loop_not_checked",
			Message: "input names no recordId, so the write ledger cannot be consulted"})
		return nil
	case source == target:
		// An owner's own write (an operator's fix) is never part of a loop.
		return nil
	case out.Decision == DecisionDeny:
		// The guard stops before the loop check when ownership refuses the write.
		return nil
	}
	if c.Ledger == nil {
		return unavailable("loop check", errors.New("no ledger configured"))
	}
	fields := maps.Clone(w.Fields)
	if out.Decision == DecisionAllowWithDrops {
		for _, f := range out.Ownership.Dropped {
			delete(fields, f)
		}
	}
	hash, err := governance.PayloadHash(fields)
	if err != nil {
		return fmt.Errorf("hashing the fields: %w", err)
	}
	names := slices.Sorted(maps.Keys(fields))
	since := c.now().Add(-c.loopWindow())
	entries, err := c.Ledger.Recent(call.ctx, call.id.TenantID, w.Entity, w.RecordID, since)
	if err != nil {
		return unavailable("write ledger", err)
	}
	out.Loop.Checked = true
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Source != target || e.Target != source || e.Time.Before(since) {
			continue
		}
		cond := ""
		switch {
		case e.PayloadHash == hash:
			cond = fmt.Sprintf("same payload hash as %s→%s write at %s", e.Source, e.Target, e.Time.UTC().Format(time.RFC3339))
		case sameNames(e.Fields, names):
			cond = fmt.Sprintf("ping-pong of fields %v with %s→%s write at %s", names, e.Source, e.Target,
				e.Time.UTC().Format(time.RFC3339))
		default:
			continue
		}
		out.Loop.Detected, out.Loop.BreakingCondition = true, cond
		decide(DecisionDeny, Reason{Code: "loop_detected", Fields: names, Message: "the write would be the " +
			"return leg of a loop and be blocked: " + cond})
		break
	}
	return nil
}

// checkMasked predicts the guard's refusal of a mask: a value copied from a stored,
// DLP-masked payload ([REDACTED:…], *****6789, [EMAIL_1]) would overwrite the record's
// data with the mask, so the guard refuses the whole write (dlp_masked_value). The
// connector-write DLP policy does not flag a mask, so without this the check answered
// allow for a write the guard refuses. Fields source_wins drops are not written, so
// their masks do not count, as in the guard.
func checkMasked(out *GovernanceResult, w proposedWrite, decide func(string, Reason)) {
	fields := maps.Clone(w.Fields)
	for _, f := range out.Ownership.Dropped {
		delete(fields, f)
	}
	if masked := governance.MaskedFields(fields); len(masked) > 0 {
		decide(DecisionDeny, Reason{Code: governance.CodeDLPMaskedValue, Fields: masked, Message: "these fields " +
			"carry a DLP mask or placeholder, not a value; the guard refuses the whole write. Write only values " +
			"someone vouched for: a fix a person approved, or fields read fresh from their system of record"})
	}
}

func sameNames(stored, names []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(stored)), names)
}

// auditScan records a scan that found something, as every DLP scan of the service does:
// types and counts, never values.
func (c *Catalog) auditScan(call *toolCall, res dlp.Result) {
	if len(res.Findings) == 0 {
		return
	}
	var list []map[string]any
	for _, c := range countsOf(res) {
		list = append(list, map[string]any{"type": c.Type, "count": c.Count})
	}
	result := audit.ResultSuccess
	if res.Blocked {
		result = audit.ResultDenied
	}
	_ = c.writeAudit(call.ctx, audit.Entry{Actor: call.id, ActionType: audit.TypeDLP, ActionKey: "dlp.scan",
		Result: result, Resource: "mcp/" + call.tool, Details: map[string]any{
			"tool": call.tool, "findings": list, "total": len(res.Findings), "blocked": res.Blocked,
		}})
	call.details["dlpFindings"] = len(res.Findings)
}
