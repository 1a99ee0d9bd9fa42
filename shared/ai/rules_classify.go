package ai

import (
	"slices"
	"strconv"
	"strings"
)

// classRule is one piece of evidence for a class: a pattern over the lower-cased error
// code and message, and how much it says.
type classRule struct {
	class  ErrorClass
	weight int
	re     fastRE
	// cue names the evidence in the rationale.
	cue string
}

func rule(c ErrorClass, w int, cue, pattern string) classRule {
	return classRule{class: c, weight: w, cue: cue, re: mustFast(pattern)}
}

// classRules are written from the error texts of the systems the service connects
// (NetSuite, QuickBooks, Salesforce, HubSpot, ShipStation, ShipEngine, EasyPost, UPS,
// HTTP stacks). Weight 3 is a phrase that names the class; 2 a strong hint; 1 a hint that
// only decides when nothing else speaks.
var classRules = []classRule{
	rule(ClassRateLimit, 3, "rate limit", `rate[ _-]?limit`),
	rule(ClassRateLimit, 3, "too many requests", `too many requests`),
	rule(ClassRateLimit, 3, "throttling", `throttl`),
	rule(ClassRateLimit, 3, "request limit exceeded", `request[ _]limit[ _]exceeded|concurren(?:cy|t request)[ _]limit`),
	rule(ClassRateLimit, 3, "per-period limit", `(?:secondly|minutely|hourly|daily|per[- ]second|per[- ]minute) limit`),
	rule(ClassRateLimit, 2, "quota reached", `(?:api )?quota (?:exceeded|reached)`),

	rule(ClassTooLarge, 3, "request too large", `(?:request|payload|entity|body|file|message|document|attachment)s? (?:is |was )?too large`),
	rule(ClassTooLarge, 3, "maximum size exceeded", `exceed(?:s|ed)? (?:the )?max(?:imum)? (?:(?:request|payload|message|body|file|upload) )?size|size limit`),
	rule(ClassTooLarge, 3, "too many lines", `max(?:imum)? (?:number of )?lines|too many (?:lines|line items|items|records|rows)|max[ _]lines`),
	rule(ClassTooLarge, 3, "over a count limit", `(?:exceed(?:s|ed)?|more than) (?:the )?max(?:imum)? (?:number )?(?:of )?[\d,]+ (?:lines|line items|operations|orders|records|rows|items|requests)|max(?:imum)? (?:number )?of [\d,]+ (?:records|operations|orders|items|requests) per|[\d,]+ (?:lines|line items|operations|orders|records|rows|items)[^.]{0,20}\b(?:more than|over) the max`),

	rule(ClassConnection, 3, "connection failure", `econnreset|connection (?:was )?(?:reset|refused|closed|aborted|dropped)|econnrefused|broken pipe|socket hang up|could not connect|failed to connect|unable to connect`),
	rule(ClassConnection, 3, "name resolution failure", `enotfound|getaddrinfo|no such host|name resolution|network (?:is )?unreachable|ehostunreach`),
	rule(ClassConnection, 3, "TLS handshake failure", `(?:tls|ssl) ?handshake|handshake[_ ]failure|terminated the handshake`),

	rule(ClassIntermittent, 3, "timeout", `timed? ?out|timeout|etimedout|deadline exceeded`),
	rule(ClassIntermittent, 3, "service unavailable", `service unavailable|temporarily unavailable|bad gateway|gateway time-?out`),
	rule(ClassIntermittent, 3, "record locked or changed concurrently", `deadlock|lock wait|(?:could not|unable to) (?:acquire|obtain) (?:a |an )?(?:lock|exclusive access)|unable[_ ]to[_ ]lock|record is locked|locked by another|rcrd_has_been_changed|record has been changed|modified since|concurrent (?:modification|update)|precondition failed|etag\b[^.]{0,40}\bdoes not match|(?:changed|modified) by (?:another user|someone else)|another user has (?:already )?changed`),
	rule(ClassIntermittent, 2, "unexpected server error", `unexpected[_ ]error|internal server error|server (?:is )?busy|overloaded`),
	rule(ClassIntermittent, 1, "try again later", `try again later|retry later|please retry`),

	rule(ClassPermission, 3, "permission", `permission`),
	rule(ClassPermission, 3, "not authorized", `not authori[sz]ed|unauthori[sz]ed|forbidden`),
	rule(ClassPermission, 3, "access denied", `access (?:is )?denied|insufficient[_ ](?:access|privileges?|rights)|does not have access|not allowed to (?:access|perform)`),
	rule(ClassPermission, 3, "invalid or expired credentials", `invalid[_ ](?:login|credentials|session|api[_ ]key|token)|token (?:has )?(?:expired|been revoked)|expired token|api[_ ]key\b[^.]{0,30}\b(?:invalid|revoked|expired)`),

	rule(ClassParse, 3, "parse error", `(?:json|xml) parse|parse error|(?:failed|unable|could not|cannot) (?:to )?parse|parsing failed|unexpected token|unexpected character|unexpected end of (?:json|input|file|stream)|syntax ?error|not well-formed|malformed|invalid (?:json|xml)`),
	rule(ClassParse, 3, "deserialization failure", `deserializ|unmarshal|httpmessagenotreadable`),

	rule(ClassDuplicate, 3, "duplicate", `duplicate|\bdup_|_dup\b`),
	rule(ClassDuplicate, 3, "already exists", `already exists?|already (?:in use|been used|been taken|taken|registered)|contact_exists|already (?:a |an )?(?:list )?member\b`),
	rule(ClassDuplicate, 3, "unique constraint", `unique (?:constraint|key|index)|uniqueness`),
	rule(ClassDuplicate, 2, "must be unique", `must be unique`),

	rule(ClassBusinessRule, 3, "closed accounting period", `period\b[^.]{0,40}\b(?:is |was )?(?:closed|locked)\b|(?:closed|locked) (?:accounting |posting )?period|period[_ ]closed`),
	rule(ClassBusinessRule, 3, "inactive or blocked record", `\binactive\b|inactive_|is not active|no longer active|\bis blocked\b|blocked for`),
	rule(ClassBusinessRule, 3, "validation rule", `field_custom_validation_exception|validation rule|cannot be in the (?:past|future)`),
	rule(ClassBusinessRule, 3, "document closed", `(?:document|order|invoice|quote)s? (?:has |have |is |are )?(?:already )?(?:been )?closed`),
	rule(ClassBusinessRule, 3, "subsidiary mismatch", `subsidiary[_ ]mismatch|not (?:assigned|available|valid) (?:to|for|in) (?:the )?subsidiary`),
	rule(ClassBusinessRule, 3, "currency not allowed", `base currency|currency\b[^.]{0,40}\bnot (?:valid|allowed|permitted|enabled) for`),
	rule(ClassBusinessRule, 3, "credit or stock rule", `credit (?:limit|hold)|insufficient (?:inventory|stock|quantity)|not enough (?:inventory|stock)|out of stock`),
	rule(ClassBusinessRule, 2, "approval or hold", `approval (?:is )?(?:required|pending)|pending approval|on hold`),
	rule(ClassBusinessRule, 3, "posting date not allowed", `allowed posting dates?|posting date\b[^.]{0,60}\b(?:not within|outside)`),
	rule(ClassBusinessRule, 3, "consent or compliance", `opted out|cannot be re-?(?:subscribed|added|imported)|compliance (?:state|review)|permanently deleted`),
	rule(ClassBusinessRule, 3, "account deactivated", `account (?:is |has been )?(?:deactivated|disconnected|not connected)|(?:is not|isn't) connected or has been deactivated`),

	rule(ClassReference, 3, "invalid reference", `invalid[_ ](?:key[_ ]or[_ ]ref|reference|cross[_ ]reference)`),
	rule(ClassReference, 3, "reference key", `reference key|invalid .{0,30}reference|references? (?:a |an )?(?:non-?existent|unknown|deleted)`),
	rule(ClassReference, 3, "not found", `not found|(?:could|can)(?:n't| ?not) be found|(?:could|can)(?:n't| ?not) find|unable to find`),
	rule(ClassReference, 3, "does not exist", `does ?n[o']t exist|rcrd_dsnt_exist|no longer exists|no (?:such|matching) (?:record|customer|item|vendor|account|contact|product|order)|unknown (?:customer|item|vendor|account|record|sku|product|contact|carrier|warehouse|location)|entity_is_deleted|has been deleted|was deleted`),
	rule(ClassReference, 1, "did you mean", `did you mean`),

	rule(ClassMissing, 3, "required field", `required (?:merge |custom )?field|must have a value|enter a value for|cannot be zero or empty|left blank|is required|are required|required fields? (?:are |is )?missing|required[_ ]field[_ ]missing|required property|is mandatory|must be provided|(?:mandatory|required) field (?:is )?not set`),
	rule(ClassMissing, 3, "missing value", `\bmissing\b|please enter value|cannot be (?:blank|empty|null)|must not be (?:blank|empty|null)|not provided|no value (?:was )?(?:given|provided)`),

	rule(ClassValue, 2, "invalid", `invalid`),
	rule(ClassValue, 3, "invalid field value", `invalid[_ ]f(?:ie)?ld[_ ]value|invalid enumeration`),
	rule(ClassValue, 3, "value too long", `too long|string_too_long|data value too large|exceeds the maximum length|max(?:imum)?[ _-]?length`),
	rule(ClassValue, 3, "value not allowed", `not one of|must be one of|allowed (?:values|options)|valid (?:values|options|services|codes)|restricted picklist|bad value`),
	rule(ClassValue, 3, "wrong type or format", `value not of required type|not a valid (?:date|number|email|phone|value)|does not match the expected format|invalid format|(?:invalid|wrong|incorrect|bad) (?:date|email|phone|postal|zip|format|number|currency|country|state|boolean)`),
	rule(ClassValue, 2, "format standard named", `e\.164|iso[ -]?3166|iso[ -]?4217|yyyy-mm-dd|iso[ -]?8601`),
	rule(ClassValue, 2, "range rule", `must be (?:greater|less|positive|at least|at most|between)|out of range`),
	rule(ClassValue, 2, "address validation", `address validation|please select a (?:state|country)|problem with this (?:state|country)`),
	rule(ClassValue, 1, "not valid", `not (?:a )?valid|not supported`),
}

// statusWeights is the evidence an HTTP status carries when the error names one.
var statusWeights = map[int]struct {
	class  ErrorClass
	weight int
}{
	400: {ClassValue, 1}, 422: {ClassValue, 1}, 401: {ClassPermission, 4}, 403: {ClassPermission, 4},
	404: {ClassReference, 2}, 409: {ClassDuplicate, 2}, 408: {ClassIntermittent, 4},
	413: {ClassTooLarge, 4}, 429: {ClassRateLimit, 4}, 500: {ClassIntermittent, 2},
	502: {ClassIntermittent, 4}, 503: {ClassIntermittent, 4}, 504: {ClassIntermittent, 4},
}

// classPriority breaks ties: transport and throttling explain everything else in the
// message (a timeout while writing an invalid value is still a timeout), and the specific
// data classes beat the generic "value".
var classPriority = []ErrorClass{
	ClassRateLimit, ClassTooLarge, ClassConnection, ClassIntermittent, ClassPermission,
	ClassParse, ClassDuplicate, ClassBusinessRule, ClassReference, ClassMissing, ClassValue,
}

var (
	statusCodeRE = lazyRegexp(`(?i)^(?:http[ _-]?)?(\d{3})$`)
	statusMsgRE  = lazyRegexp(`(?i)(?:^|\b(?:http|status(?: code)?|response code|error code)[ :=]*)(\d{3})\b`)
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
	cues      []string
}

// classify weighs the evidence of every rule; the class with the most wins, ties going
// by classPriority. Certainty grows with the winner's weight and its lead.
func classify(code, msg string) classification {
	text := strings.ToLower(code + " " + msg)
	score := map[ErrorClass]int{}
	cues := map[ErrorClass][]string{}
	for _, r := range classRules {
		if r.re.MatchString(text, text) {
			score[r.class] += r.weight
			cues[r.class] = append(cues[r.class], r.cue)
		}
	}
	if s := httpStatus(code, msg); s != 0 {
		if w, ok := statusWeights[s]; ok {
			score[w.class] += w.weight
			cues[w.class] = append(cues[w.class], "HTTP "+strconv.Itoa(s))
		}
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
		return classification{class: ClassValue, certainty: 0.3}
	}
	top, lead := score[best], score[best]-second
	var certainty float64
	switch {
	case top >= 5 && lead >= 3:
		certainty = 0.95
	case top >= 3 && lead >= 2:
		certainty = 0.9
	case top >= 3:
		certainty = 0.75
	case top == 2:
		certainty = 0.7
	default:
		certainty = 0.55
	}
	return classification{class: best, certainty: certainty, cues: slices.Compact(cues[best])}
}
