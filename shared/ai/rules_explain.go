package ai

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The rationale is written for the operator working the queue: what is wrong, what
// decided it (the error's code, status or words, and where their meaning comes from),
// what to change, and whether a retry can help. How the rules weighed the evidence (rule
// names, weights, scores) is for an engineer and goes to the trace (reasoning).

// classWrong says what is wrong, for each class, about a system (%s); refusals (a rule of
// the target refusing a well-formed value) have their own wording.
var classWrong = map[ErrorClass]string{
	ClassValue:        "%s refused a value in the record",
	ClassMissing:      "%s needs a value the record does not have",
	ClassReference:    "a value in the record should point to another record in %s, but that record is unknown, deleted or not a valid id",
	ClassDuplicate:    "%s already has this record, or another record with the same unique value",
	ClassPermission:   "%s refused the integration's user: a permission or scope is missing, or its credentials expired or were revoked",
	ClassConnection:   "no usable answer came from %s: the connection failed, was closed or timed out",
	ClassIntermittent: "%s failed for a passing reason (busy, under maintenance, or a record locked or changed by someone else)",
	ClassRateLimit:    "%s is throttling the integration: a request, concurrency or usage quota is used up",
	ClassTooLarge:     "the request is over one of %s's limits on size or count (records, lines, ids, a file or bytes in one request)",
	ClassParse:        "%s could not read the request: malformed JSON or XML, or a media type or encoding it does not accept",
}

var refusalWrong = map[ErrorClass]string{
	ClassValue:     "%s's business rules do not allow a value in this record's context, although the value itself is well formed",
	ClassReference: "the record points to a record %s will not accept here: it is inactive, blocked, closed or disconnected",
}

// classTodo is what to change, for each class.
var classTodo = map[ErrorClass]string{
	ClassValue:        "Correct the value in the source record, or map it to a value %s accepts.",
	ClassMissing:      "Fill the field in the source record, or give the mapping a default.",
	ClassReference:    "Create or sync the referenced record in %s first, or point the field at a record that exists.",
	ClassDuplicate:    "Link the record to the existing one instead of creating it again.",
	ClassPermission:   "Ask the %s administrator to grant the integration's role the permission or scope the message names, or renew its credentials; no change to the record will help.",
	ClassConnection:   "Nothing to change in the record: the queue runs the sync again from its source. If it keeps failing, check that %s is reachable (network, DNS, certificates).",
	ClassIntermittent: "Nothing to change in the record: the queue runs the sync again from its source.",
	ClassRateLimit:    "Nothing to change in the record: the queue runs the sync again from its source after a pause. If it keeps happening, spread the integration's load or raise its quota in %s.",
	ClassTooLarge:     "Send less in one request: split the batch or list, send fewer lines or ids per call, or shrink the file.",
	ClassParse:        "Check the mapping or connector that builds the request: it sent a value of the wrong type or a malformed document.",
}

var refusalTodo = map[ErrorClass]string{
	ClassValue:     "A person decides: change the value to one the rule allows (an open period, an allowed currency or subsidiary), or change the setting in %s.",
	ClassReference: "Reactivate or reopen the referenced record in %s, or point the field at one that is active.",
}

// classNoun names each class for an operator.
var classNoun = map[ErrorClass]string{
	ClassValue: "an invalid value", ClassMissing: "a missing value", ClassReference: "a broken reference",
	ClassDuplicate: "a duplicate", ClassPermission: "a permission problem", ClassConnection: "a connection failure",
	ClassIntermittent: "a temporary failure", ClassRateLimit: "throttling", ClassTooLarge: "a request over a limit",
	ClassParse: "an unreadable request",
}

// refuser is the system that refused the record: the one whose code decided the class,
// else the one the record's direction says (see scopeOf); c is nil when the diagnoser
// has no catalogue of it.
func (a *analysis) refuser() (c *catalogue, name string) {
	if d := a.cls.decidedBy; d != nil && d.own != nil {
		return d.own, d.own.vendor
	}
	return a.scope.refusing, a.scope.name
}

func wrongFor(c classification, system string) string {
	if w, ok := refusalWrong[c.class]; ok && c.refusal {
		return fmt.Sprintf(w, system)
	}
	return fmt.Sprintf(classWrong[c.class], system)
}

func todoFor(c classification, system string) string {
	t := classTodo[c.class]
	if r, ok := refusalTodo[c.class]; ok && c.refusal {
		t = r
	}
	if strings.Contains(t, "%s") {
		return fmt.Sprintf(t, system)
	}
	return t
}

// quoted is the part of the error a pattern matched, as the error spells it, short
// enough to read in a sentence. lower is original lower-cased; loc indexes lower.
func quoted(original, lower string, loc []int) string {
	s := lower[loc[0]:loc[1]]
	if len(original) == len(lower) {
		s = original[loc[0]:loc[1]]
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return s
}

// plain says one piece of evidence in a sentence's words, with where its meaning comes
// from: a code only other vendors list is read by its class, citing none of them (s says
// whose documentation does not list it).
func (e evidence) plain(s scope) string {
	switch {
	case e.foreign():
		return fmt.Sprintf("the error code %s, which %s for %s%s", e.said, e.usedBy(), classNoun[e.class], s.notListed())
	case e.kind == "code":
		return fmt.Sprintf("the error code %s, which means %q according to %s", e.said, e.meaning, e.src)
	case e.kind == "status":
		return fmt.Sprintf("HTTP status %s, which means %q according to %s", e.said, e.meaning, e.src)
	}
	words := fmt.Sprintf("the message's words %q", e.said)
	if e.inCode {
		words = fmt.Sprintf("the words of the error code %s", e.said)
	}
	if e.src.url == "" {
		return fmt.Sprintf("%s, which the diagnoser's class definitions count as %s", words, classNoun[e.class])
	}
	return fmt.Sprintf("%s, which mean %s according to %s", words, classNoun[e.class], e.src)
}

// foreign: a code the error's own systems' catalogues do not list, but another vendor's do.
func (e evidence) foreign() bool { return e.kind == "code" && e.others > 0 }

// usedBy says who uses a foreign code, naming no vendor.
func (e evidence) usedBy() string {
	if e.others > 1 {
		return "other systems use"
	}
	return "another system uses"
}

// short says a piece of supporting evidence in a few words.
func (e evidence) short() string {
	switch e.kind {
	case "code":
		return "the code " + e.said
	case "status":
		return "HTTP status " + e.said
	}
	if e.inCode {
		return "the code " + e.said
	}
	return fmt.Sprintf("the words %q", e.said)
}

// rationale is the operator's explanation of the diagnosis.
func (a *analysis) rationale(fix []FieldChange) string {
	_, system := a.refuser()
	c := a.cls
	var b strings.Builder
	if c.decidedBy == nil {
		fmt.Fprintf(&b, "Nothing in the error's code, status or message says what kind of failure this is, so it is filed as %s at the lowest confidence for a person to judge.", classNoun[c.class])
	} else {
		wrong := wrongFor(c, system)
		if a.field != "" && !c.class.Retryable() {
			wrong += fmt.Sprintf(" (field %s)", a.field)
		}
		fmt.Fprintf(&b, "%s. Decided by %s.", upperFirst(wrong), c.decidedBy.plain(a.scope))
		if agree := a.agreeing(); len(agree) > 0 {
			fmt.Fprintf(&b, " Also pointing there: %s.", strings.Join(agree, ", "))
		}
		for _, e := range c.against {
			switch {
			case e.kind != "code" || e.weight < codeDecisive:
			case e.foreign():
				fmt.Fprintf(&b, " The code %s is one %s for %s, but the message's words outweigh it here: check before acting.", e.said, e.usedBy(), classNoun[e.class])
			default:
				fmt.Fprintf(&b, " The code %s usually means %q (%s), but the message's words outweigh it here: check before acting.", e.said, e.meaning, e.src)
			}
		}
	}
	for _, g := range c.generic {
		if g.foreign() {
			fmt.Fprintf(&b, " The code %s names no kind of failure by itself.", g.said)
			continue
		}
		fmt.Fprintf(&b, " The code %s alone says only %q (%s).", g.said, g.meaning, g.src)
	}
	for _, n := range a.notes {
		b.WriteString(" Note: " + n + ".")
	}
	b.WriteString(" What to do: ")
	if len(fix) > 0 {
		parts := make([]string, len(a.proposals))
		for i, p := range a.proposals {
			parts[i] = fmt.Sprintf("set %s to %s (%s)", p.change.Path, showValue(p.change.After), p.reason)
		}
		b.WriteString(upperFirst(strings.Join(parts, "; ")) + ".")
		if c.class == ClassDuplicate {
			b.WriteString(" " + todoFor(c, system))
		}
	} else {
		switch c.class {
		case ClassValue, ClassMissing, ClassReference, ClassParse:
			b.WriteString("The record alone does not say what the right value is. ")
		}
		b.WriteString(todoFor(c, system))
	}
	if !c.class.Retryable() {
		b.WriteString(" Retrying it unchanged will fail the same way.")
	}
	return b.String()
}

// agreeing lists, shortly, the other evidence for the class (at most three), leaving out
// what repeats the deciding evidence or another quote.
func (a *analysis) agreeing() []string {
	var out, quotes []string
	seen := map[string]bool{}
	if d := a.cls.decidedBy; d != nil {
		seen[d.short()] = true
		if d.kind == "wording" && !d.inCode {
			quotes = append(quotes, strings.ToLower(d.said))
		}
	}
	for _, e := range a.cls.support {
		s := e.short()
		if seen[s] || len(out) == 3 || (e.kind == "wording" && !e.inCode && overlaps(quotes, strings.ToLower(e.said))) {
			continue
		}
		seen[s] = true
		if e.kind == "wording" && !e.inCode {
			quotes = append(quotes, strings.ToLower(e.said))
		}
		out = append(out, s)
	}
	return out
}

// overlaps reports whether q contains, or is contained in, one of quotes.
func overlaps(quotes []string, q string) bool {
	for _, x := range quotes {
		if strings.Contains(x, q) || strings.Contains(q, x) {
			return true
		}
	}
	return false
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// traceEvidence is one piece of evidence as the trace keeps it.
type traceEvidence struct {
	Kind   string     `json:"kind"`
	Class  ErrorClass `json:"class,omitempty"`
	Weight int        `json:"weight"`
	Rule   string     `json:"rule"`
	Said   string     `json:"said"`
	Source string     `json:"source"`
	// OtherVendors: a code the error's own systems do not list, found in this many other
	// vendors' catalogues (Source is the first's); the rationale cites none of them.
	OtherVendors int `json:"otherVendors,omitempty"`
}

func traced(es []evidence) []traceEvidence {
	out := make([]traceEvidence, len(es))
	for i, e := range es {
		out[i] = traceEvidence{Kind: e.kind, Class: e.class, Weight: e.weight, Rule: e.rule, Said: e.said, Source: e.src.String(),
			OtherVendors: e.others}
	}
	return out
}

// reasoning is how the rules reached the diagnosis, for the trace: every piece of
// evidence with its rule and weight, each class's score, the certainty and each change's
// basis. confidence is the score given to the diagnosis under review.
func (a *analysis) reasoning(confidence float64) json.RawMessage {
	type change struct {
		Path   string  `json:"path"`
		Basis  float64 `json:"basis"`
		Reason string  `json:"reason"`
	}
	r := struct {
		Class      ErrorClass         `json:"class"`
		Certainty  float64            `json:"certainty"`
		Confidence float64            `json:"confidence"`
		Scores     map[ErrorClass]int `json:"scores"`
		DecidedBy  []traceEvidence    `json:"decidedBy"`
		Support    []traceEvidence    `json:"support"`
		Against    []traceEvidence    `json:"against"`
		Generic    []traceEvidence    `json:"generic"`
		Refusal    bool               `json:"refusal"`
		Changes    []change           `json:"changes"`
	}{Class: a.cls.class, Certainty: a.cls.certainty, Confidence: confidence, Scores: a.cls.scores,
		Support: traced(a.cls.support), Against: traced(a.cls.against), Generic: traced(a.cls.generic),
		Refusal: a.cls.refusal, Changes: []change{}}
	if a.cls.decidedBy != nil {
		r.DecidedBy = traced([]evidence{*a.cls.decidedBy})
	}
	for _, p := range a.proposals {
		r.Changes = append(r.Changes, change{Path: p.change.Path, Basis: p.basis, Reason: p.reason})
	}
	raw, _ := json.Marshal(r)
	return raw
}
