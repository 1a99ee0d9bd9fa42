package ai

import (
	"strconv"
	"strings"
)

// evidence is one thing the error says about its class.
type evidence struct {
	kind   string // "code", "status" or "wording"
	class  ErrorClass
	weight int
	// rule names the catalogue entry or wording rule, for the trace; said is what the
	// error itself says (the code as spelled, the status, the words matched), for the
	// operator; meaning is what the source says a code or status means.
	rule    string
	said    string
	meaning string
	src     source
	// refusal: a rule of the target refused a well-formed value (see classRule).
	refusal bool
	// inCode: the words were matched in the error code, not in the message.
	inCode bool
	// own is, for a code, the catalogue of the error's own system that lists it; others
	// how many other vendors list a code the error's own systems do not (see scope).
	own    *catalogue
	others int
}

// classPriority breaks ties: transport and throttling explain everything else in the
// message (a timeout while writing an invalid value is still a timeout), and the specific
// data classes beat the generic "value".
var classPriority = []ErrorClass{
	ClassRateLimit, ClassTooLarge, ClassConnection, ClassIntermittent, ClassPermission,
	ClassParse, ClassDuplicate, ClassReference, ClassMissing, ClassValue,
}

var (
	statusCodeRE = lazyRegexp(`(?i)^(?:http[ _-]?)?(\d{3})$`)
	statusMsgRE  = lazyRegexp(`(?i)(?:^|\b(?:http(?:/\d(?:\.\d)?)?|status(?: code)?|response code|error code)[ :=]*|<title>|<h1>)(\d{3})\b`)
)

// httpStatus finds an HTTP status the error code or message names.
func httpStatus(code, msg string) int {
	for _, m := range [][]string{statusCodeRE().FindStringSubmatch(strings.TrimSpace(code)), statusMsgRE().FindStringSubmatch(strings.TrimSpace(msg))} {
		if m == nil {
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n >= 400 && n <= 599 {
			return n
		}
	}
	return 0
}

type classification struct {
	class     ErrorClass
	certainty float64
	// decidedBy is the evidence that carried the class, for the rationale; support the
	// rest of the evidence for it; generic the vendor codes that name no class.
	decidedBy *evidence
	support   []evidence
	generic   []evidence
	// refusal: the class rests on a rule of the target refusing a well-formed value.
	refusal bool
	// against is the evidence for other classes; scores the weight each class had. Both
	// go to the trace, and a decisive code among against to the rationale.
	against []evidence
	scores  map[ErrorClass]int
}

// gather collects every piece of evidence the error carries, strongest kind first.
func gather(s scope, code, msg string) (found, generic []evidence) {
	for _, v := range s.codeEvidence(code, msg) {
		e := evidence{kind: "code", class: v.class, weight: v.weight, rule: "code " + v.code, said: v.code, meaning: v.meaning, src: v.src,
			own: v.own, others: v.others}
		if v.class == "" {
			generic = append(generic, e)
			continue
		}
		found = append(found, e)
	}
	if st := httpStatus(code, msg); st != 0 {
		if m, ok := statusEvidence(s.external, st); ok {
			found = append(found, evidence{kind: "status", class: m.class, weight: m.weight, rule: "status " + strconv.Itoa(st),
				said: strconv.Itoa(st), meaning: m.meaning, src: m.src})
		}
	}
	text := strings.ToLower(code + " " + msg)
	for _, r := range classRules {
		if loc := r.re.FindStringIndex(text, text); loc != nil {
			e := evidence{kind: "wording", class: r.class, weight: r.weight, rule: r.cue,
				said: quoted(code+" "+msg, text, loc), src: r.src, refusal: r.refusal}
			if loc[1] <= len(code) {
				e.said, e.inCode = strings.TrimSpace(code), true
			}
			found = append(found, e)
		}
	}
	return found, generic
}

// classify weighs the evidence: the class with the most wins, ties going by
// classPriority. Certainty rests on what decided: a vendor's code whose meaning is the
// class, uncontested, is the firmest; wording alone, with a narrow lead, the weakest.
func classify(s scope, code, msg string) classification {
	found, generic := gather(s, code, msg)
	score := map[ErrorClass]int{}
	for _, e := range found {
		score[e.class] += e.weight
	}
	best, second := ErrorClass(""), 0
	for _, c := range classPriority {
		switch {
		case best == "" && score[c] > 0:
			best = c
		case best != "" && score[c] > score[best]:
			second = score[best]
			best = c
		case best != "" && score[c] > second:
			second = score[c]
		}
	}
	if best == "" {
		// Nothing recognisable: not retryable, so a person looks at it instead of the
		// queue retrying it forever.
		return classification{class: ClassValue, certainty: 0.3, generic: generic}
	}
	cl := classification{class: best, generic: generic}
	var decisiveAgainst bool
	for i, e := range found {
		switch {
		case e.class != best:
			decisiveAgainst = decisiveAgainst || (e.kind == "code" && e.weight >= codeDecisive)
			cl.against = append(cl.against, e)
		case cl.decidedBy == nil || e.weight > cl.decidedBy.weight:
			if cl.decidedBy != nil {
				cl.support = append(cl.support, *cl.decidedBy)
			}
			cl.decidedBy = &found[i]
		default:
			cl.support = append(cl.support, e)
		}
		if e.class == best && e.refusal {
			cl.refusal = true
		}
	}
	cl.certainty = certainty(cl.decidedBy, score[best], score[best]-second, decisiveAgainst)
	cl.scores = score
	return cl
}

// certainty maps the evidence to how often such a classification is right; the bands were
// set from the calibration make eval-diagnoser prints on the project's corpora.
func certainty(by *evidence, top, lead int, decisiveAgainst bool) float64 {
	switch {
	case decisiveAgainst:
		return 0.6 // the wording overruled a vendor's decisive code
	case by.kind == "code" && by.weight >= codeDecisive && lead >= 4:
		return 0.95
	case by.kind == "code" && by.weight >= codeDecisive:
		return 0.85
	case top >= 4 && lead == top, top >= 6 && lead >= 4:
		return 0.9 // nothing speaks for another class
	case top >= 4 && lead >= 2:
		return 0.85
	case top >= 4:
		return 0.7
	case top >= 2 && lead >= 2:
		return 0.65
	default:
		return 0.5
	}
}
