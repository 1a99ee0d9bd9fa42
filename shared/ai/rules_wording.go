package ai

// classRule is one piece of wording evidence for a class: a pattern over the lower-cased
// error code and message, and how much it says. Wording is the third kind of evidence,
// after the vendor's code and the HTTP status: it decides only where they do not.
type classRule struct {
	class  ErrorClass
	weight int
	re     fastRE
	// cue names the evidence in the rationale.
	cue string
	// refusal marks a rule of the target refusing a well-formed value (a closed period, an
	// inactive item): the fix is a business decision, so no format correction is proposed.
	refusal bool
	// src is where the wording's meaning comes from: the vendor page a rule was written
	// from, or srcWording for wording written from the class definitions.
	src source
}

// rule is not inlined: classRules calls it (and the wrappers below) at every entry, in
// the package's initialiser (see mustFast).
//
//go:noinline
func rule(c ErrorClass, w int, cue, pattern string) classRule {
	return classRule{class: c, weight: w, cue: cue, re: mustFast(pattern), src: srcWording}
}

// ruleFrom is a rule written from one vendor's or standard's page, which it cites.
func ruleFrom(src source, c ErrorClass, w int, cue, pattern string) classRule {
	r := rule(c, w, cue, pattern)
	r.src = src
	return r
}

func refusal(c ErrorClass, w int, cue, pattern string) classRule {
	r := rule(c, w, cue, pattern)
	r.refusal = true
	return r
}

func refusalFrom(src source, c ErrorClass, w int, cue, pattern string) classRule {
	r := refusal(c, w, cue, pattern)
	r.src = src
	return r
}

// classRules are the wording the vendors' references (catalogue.go) and the runtimes use
// for each class, written from the class definitions rather than from any corpus. Weight
// 10 is a quota named in words: it outweighs the 403 or 503 that carried it and the
// "unavailable" and "retry" around it; 4 names the class; 3 is a strong hint; 2 a hint; 1 decides only when
// nothing else speaks.
var classRules = []classRule{
	rule(ClassRateLimit, 4, "rate limit", `rate[ _-]?limit`),
	rule(ClassRateLimit, 4, "too many requests", `too many requests`),
	rule(ClassRateLimit, 4, "throttling", `throttl`),
	ruleFrom(srcAWSThrottle, ClassRateLimit, 10, "a request rate exceeded", `\brate exceeded|reduce (?:your |the )?request rates?|request rate (?:is )?too high|exceeded [\d,]+ (?:api )?(?:calls|requests) (?:per|a|an|each) (?:second|minute|hour|day)`),
	ruleFrom(srcSalesforceREST, ClassRateLimit, 10, "a concurrency limit exceeded", `concurrent\w* limit exceeded`),
	rule(ClassRateLimit, 10, "concurrency quota", `request[ _]limit[ _]exceeded|concurren(?:cy|t request)[ _]limit|concurrent requests?\b[^.]{0,40}\b(?:limit|exceed|allowed)|requests? allowed at the same time|simultaneous (?:connections|requests)`),
	rule(ClassRateLimit, 10, "per-period quota", `(?:secondly|minutely|hourly|daily|per[- ]second|per[- ]minute|per[- ]hour|per[- ]day|ten[- ]?secondly) (?:rate )?limit`),
	rule(ClassRateLimit, 10, "quota used up", `quota\b[^.]{0,30}\b(?:exceeded|reached|used up|exhausted)|(?:exceeded|reached|over) (?:the |your |its |this )?(?:\w+ )?quota`),
	rule(ClassRateLimit, 10, "API or governance limit reached", `(?:api|request|call|usage|governance)[ _]limits?\b[^.]{0,40}\b(?:exceeded|reached|hit)|(?:exceeded|reached|hit) (?:the |your |its )?(?:\w+ )?(?:api|request|call|usage|governance) limit|totalrequests limit|limit reached for (?:this|the) (?:org|organization|account)|governor limit|too many (?:soql|dml|sosl|apex|api|concurrent) (?:queries|statements|requests|calls)`),

	rule(ClassTooLarge, 4, "request too large", `(?:request|payload|entity|body|file|message|document|attachment|upload)s? (?:is |was )?too (?:large|big)`),
	rule(ClassTooLarge, 4, "over a size limit", `exceed(?:s|ed)? (?:the )?(?:max(?:imum)? )?(?:allowed |permitted )?(?:(?:request|payload|message|body|file|upload|attachment) )?size|size limit|(?:file|attachment|upload|document|image|payload|request|body)s?\b[^.]{0,40}\b(?:larger|bigger) than [\d.,]+ ?(?:kb|mb|gb|bytes)|exceed(?:s|ed)? (?:the )?[\d.,]+ ?(?:kb|mb|gb)|[\d.,]+ ?(?:kb|mb|gb|bytes) (?:\w+ )?limit|(?:uri|url) (?:is )?too long`),
	rule(ClassTooLarge, 4, "too many lines or records", `max(?:imum)? (?:number of )?lines|too many (?:lines|line items|items|records|rows|ids|inputs|operations|subrequests)|max[ _]lines|record limit reached`),
	rule(ClassTooLarge, 4, "over a count limit", `(?:exceed(?:s|ed)?|more than|over) (?:the )?(?:max(?:imum)? )?(?:number )?(?:of )?[\d,]+ (?:\w+ )?(?:lines|line items|operations|orders|records|rows|items|requests|ids|inputs|subrequests|members|objects|entries|changes|entities|documents|files|attachments|elements|keys)|[\d,]+ (?:lines|line items|operations|orders|records|rows|items)[^.]{0,20}\b(?:more than|over) the max|(?:up to|at most|no more than|a maximum of|limited to) [\d,]+ (?:\w+ )?(?:lines|operations|orders|records|rows|items|ids|inputs|subrequests|members|objects|entries|changes) (?:in|per|into)`),
	rule(ClassTooLarge, 3, "batch over its limit", `(?:batch|change ?set|\$batch|composite|bulk)\b[^.]{0,60}\b(?:more than|exceed|limited to|maximum|up to|at most)`),
	rule(ClassTooLarge, 3, "page over its limit", `page ?size\b[^.]{0,30}\b(?:exceed|maximum|more than|larger)|\$top\b[^.]{0,30}\bexceed`),
	// Count limits named in words, without the number: NetSuite's list operations
	// ("exceeded the maximum allowable number of records"), HubSpot's batch endpoints ("the
	// maximum number of inputs supported in a batch request is 50", "reduce the number of
	// items"), Business Central's $batch.
	ruleFrom(srcNetSuiteFaults, ClassTooLarge, 4, "a count limit named in words", `max(?:imum)?(?: of)? [\d,]+ (?:lines|line items|records|items|ids|inputs|operations|rows|entries|objects|entities|members|subrequests|elements) (?:\w+ )?(?:exceeded|reached)|max(?:imum)? number of (?:records|lines|line items|items|ids|inputs|operations|rows|entries|objects|entities|members|subrequests|elements) (?:allowed |permitted )?(?:\w+ ){0,3}(?:exceeded|reached)|number of (?:records|lines|items|ids|inputs|operations|rows|entries|objects|entities|members|subrequests|elements)\b[^.]{0,30}\bexceeds?\b|exceed(?:s|ed|ing)? (?:the )?max(?:imum)? (?:allow(?:able|ed) |permitted |supported )?number of (?:records|lines|line items|items|ids|inputs|operations|rows|entries|objects|entities|members|requests|subrequests|files|attachments|elements)|(?:max(?:imum)?|greatest) number of (?:records|lines|items|ids|inputs|operations|rows|entries|objects|entities|members|subrequests|elements)\b[^.]{0,60}\b(?:is|of|exceeded) [\d,]+`),
	// A count per request, batch or call, however the limit is phrased ("may have at most
	// 5000 lines", "can only send 1000 operations in a batch", "too many shipments in one
	// batch"): a request over a count limit by the class definition. Requests per period
	// are rate limits, so "requests" is not among the things counted here.
	ruleFrom(srcBCLimits, ClassTooLarge, 4, "a count per request over its limit", `(?:may|can|must|should) (?:only )?(?:have|contain|include|hold|carry|send|submit|add|process|update|create) (?:up to |at most |no more than |a maximum of |)[\d,]+ (?:\w+ )?(?:lines|line items|operations|orders|records|rows|items|ids|inputs|subrequests|members|objects|entries|changes|entities|documents|files|attachments|elements|keys|shipments|labels|contacts|products|invoices)\b|too many (?:\w+ )?(?:lines|line items|operations|orders|records|rows|items|ids|inputs|subrequests|members|objects|entries|changes|entities|documents|files|attachments|elements|keys|shipments|labels|contacts|products|invoices) (?:in|for|per) (?:one|a|the|this|each|a single) (?:batch|request|call|list|payload|message|upload|file|transaction|order|change ?set)|(?:list|array|batch|set) of \w+ (?:is|was) too (?:long|large|big)`),
	ruleFrom(srcRFC9110, ClassTooLarge, 4, "a request or answer over its size", `(?:request|payload|body|file|upload|attachment|message|document|entity|content|response|result|page)(?: entity)? size\b[^.]{0,40}\b(?:exceed|larger|greater|too|over|limit|maximum)|(?:response|result|results|query result|page) (?:is |was )?too (?:large|big)`),
	ruleFrom(srcBCLimits, ClassTooLarge, 4, "more results than one answer may hold", `(?:returned|returns|matched|matches|would return) more than [\d,]+ (?:results|records|rows|items)|too many (?:search )?results`),
	ruleFrom(srcRFC9110, ClassTooLarge, 4, "a request over its size in bytes", `(?:request|payload|body|file|message|upload|attachment|document|content)\b[^.]{0,40}\b(?:must|should) be (?:smaller|less) than [\d.,]+ ?(?:bytes|kb|mb|gb)|exceed(?:s|ed)? (?:the )?max(?:imum)? (?:number of )?(?:characters|bytes) (?:allowed )?(?:in|for|per) (?:a |the |one )?(?:file|request|batch|payload|message|body|upload)`),
	// A message size quota is a size limit, not a request quota: it outweighs the
	// "quota exceeded" wording of rate limits.
	ruleFrom(srcWCF, ClassTooLarge, 12, "a message size quota", `maxreceivedmessagesize|max(?:imum)? ?(?:request|message|buffer|string ?content) ?(?:length|size)\b[^.]{0,30}\b(?:exceeded|reached)|(?:message|request|content|body|payload) size quota|maximum request length exceeded`),
	ruleFrom(srcHubSpotLimits, ClassTooLarge, 3, "asks for fewer items per request", `reduce the number of (?:records|items|ids|inputs|lines|operations|rows|entries|objects|members)|split (?:the|your|it into|them into) (?:\w+ )?(?:list|lists|batch|batches|request|requests|file|payload|chunks)|(?:fewer|smaller) (?:records|items|ids|inputs|lines|operations|batches|requests|chunks) per (?:request|batch|call)`),
	// JSON Schema validators (Mailchimp's API answers with their wording) name an array or
	// object over its maxItems or maxProperties.
	ruleFrom(srcJSONSchema, ClassTooLarge, 4, "an array over its maximum items", `array (?:with|of|has|containing) (?:at most|more than|no more than|a maximum of) [\d,]+ (?:items|elements)|\bmaxitems\b|\bmaxproperties\b|must not have more than [\d,]+ (?:items|properties|elements)|(?:has|contains|found) (?:too many|more than [\d,]+) (?:items|elements|properties)`),
	ruleFrom(srcRFC6585Headers, ClassTooLarge, 4, "headers too large", `header(?:s| fields?)? (?:or cookie )?(?:is |are )?too (?:large|long|big)|headers? overflow`),
	ruleFrom(srcMailchimpBatch, ClassTooLarge, 4, "content too large", `content too large|(?:list|batch|request) (?:is |was )?too (?:large|long|big)|max(?:imum)? (?:batch|request|payload|body|upload|file|attachment|message) size`),

	rule(ClassConnection, 4, "connection failure", `econnreset|connection (?:was )?(?:reset|refused|closed|aborted|dropped)|econnrefused|broken pipe|socket hang up|could not connect|failed to connect|unable to connect|forcibly closed|transport connection|remote (?:host|end|server) closed`),
	rule(ClassConnection, 4, "name resolution failure", `enotfound|getaddrinfo|no such host|name resolution|name or service not known|network (?:is )?unreachable|ehostunreach|could not resolve host`),
	rule(ClassConnection, 4, "TLS failure", `(?:tls|ssl) ?handshake|handshake[_ ]failure|terminated the handshake|certification path|certificate verify failed|x509: certificate`),
	rule(ClassConnection, 4, "socket or read time-out", `read timed? ?out|socket time-?out|timed out (?:while )?(?:waiting|reading|connecting)|(?:connect|connection|read|socket|i/o) time-?out|esockettimedout|etimedout|did not (?:respond|answer) in time|no response (?:was )?received|timed out after [\d,]+ ?m?s`),
	rule(ClassConnection, 4, "gateway could not reach the target", `bad gateway|gateway time-?out|upstream (?:server|connect|request)|invalid response from the upstream|could not get a valid response|proxy error|"?: eof$|reset before headers`),
	rule(ClassConnection, 2, "timeout", `timed? ?out|timeout|deadline exceeded`),
	ruleFrom(srcUndici, ClassConnection, 4, "the other side closed the socket", `other side closed|socket (?:was )?closed|closed the connection|server disconnected|connection (?:was )?terminated|terminated unexpectedly`),
	ruleFrom(srcNodeTLS, ClassConnection, 4, "a TLS certificate refused", `certificate has expired|unable to verify the first certificate|self[- ]signed certificate|certificate (?:is )?(?:not trusted|untrusted|expired|revoked)|does not match (?:the )?(?:server )?certificate|certificate verify failed`),
	ruleFrom(srcApacheHTTP, ClassConnection, 4, "the server did not respond", `failed to respond|server did not respond|empty reply from server|web server is down|origin (?:is )?unreachable`),
	ruleFrom(srcEnvoy, ClassConnection, 4, "the proxy had no target to send to", `no healthy upstream|upstream (?:connect(?:ion)? )?(?:failure|timeout)|no upstream (?:host|server)s? available`),
	ruleFrom(srcDotNetWeb, ClassConnection, 4, "the host name did not resolve", `remote name could not be resolved|host(?: ?name)? could not be resolved|name ?resolution ?failure|connection pool (?:shut down|closed|exhausted)`),
	ruleFrom(srcFetch, ClassConnection, 4, "fetch failed before an answer", `\bfetch failed\b|network ?error when attempting to fetch|failed to fetch`),

	rule(ClassIntermittent, 4, "service unavailable", `service unavailable|temporarily unavailable|temporarily unable|under maintenance|scheduled maintenance`),
	rule(ClassIntermittent, 4, "record locked or changed concurrently", `deadlock|lock wait|(?:could not|unable to) (?:acquire|obtain) (?:a |an )?(?:lock|exclusive access)|unable[_ ]to[_ ]lock|record is locked|locked by another|rcrd_has_been_changed|(?:record|entity) has (?:been )?changed|modified since|concurrent (?:modification|update)|precondition failed|etag\b[^.]{0,40}\bdoes not match|(?:changed|modified|edited|updated) by (?:another|someone else)|another (?:user|session|process) has (?:already )?(?:changed|modified|updated)|being (?:edited|modified|updated) by|waiting for (?:a |the )?(?:\w+ )?lock|lock (?:request )?time-?out`),
	ruleFrom(srcRFC4918, ClassIntermittent, 4, "a resource locked for now", `(?:record|resource|object|entity|row|document|table|item) is (?:currently |temporarily )?locked`),
	rule(ClassIntermittent, 3, "server ran out of time", `execution time (?:limit )?exceeded|took longer than (?:the )?allowed|time limit exceeded`),
	rule(ClassIntermittent, 2, "unexpected server error", `unexpected[_ ](?:internal )?error|internal (?:server )?error|server (?:is )?busy|overloaded`),
	rule(ClassIntermittent, 2, "try again", `try again|retry (?:later|the request)|please retry|rerun the transaction`),

	rule(ClassPermission, 4, "permission", `permission`),
	rule(ClassPermission, 4, "not authorized", `not authori[sz]ed|unauthori[sz]ed|forbidden`),
	rule(ClassPermission, 4, "access denied", `access (?:is )?denied|insufficient[_ ](?:access|privileges?|rights|scopes?)|does not have access|not allowed to (?:access|perform)|(?:not been|isn't|is not) granted|required scopes?|missing scopes?`),
	rule(ClassPermission, 4, "invalid or expired credentials", `invalid[_ ](?:login|credentials|session|api[_ ]key|token|grant)|(?:token|session|credentials|password)\b[^.]{0,30}\b(?:has |have |is |are |was )?(?:expired|been revoked|revoked)|expired (?:access |refresh |api )?token|api[_ ]key\b[^.]{0,30}\b(?:invalid|revoked|expired|missing|disabled)|rejected the (?:client )?credentials|log ?in again|session (?:expired|is invalid)`),
	ruleFrom(srcMailchimp, ClassPermission, 4, "the account is suspended or disabled", `(?:account|user|login) (?:has been |is |was )?(?:suspended|disabled|locked out)`),
	rule(ClassPermission, 4, "field-level security", `security settings of this field|field-level security|read/write for your profile|not (?:createable|updateable|writable)`),

	rule(ClassParse, 4, "parse error", `(?:json|xml) ?pars|parse error|(?:failed|unable|could not|cannot) (?:to )?parse|parsing (?:failed|error)|unexpected (?:token|character|end of|end-of|node|eof)|syntax ?error|not well-formed|malformed (?:json|xml|request|body|document|payload|input|content|syntax|query)|invalid (?:json|xml)|content is not allowed in prolog|premature end of (?:file|input|stream|content)|invalid start of a value|end-of-input|was expecting (?:double-quote|a colon|comma)`),
	rule(ClassParse, 4, "deserialization failure", `deserializ|unmarshal|httpmessagenotreadable|not a valid representation|error (?:while|when) reading the request body|reader encountered|error converting value .{0,80} to type|path '[^']*', line \d+, position \d+`),
	ruleFrom(srcPythonJSON, ClassParse, 4, "Python's JSON decoder failed", `expecting (?:value|property name|',' delimiter|':' delimiter)\b[^.]{0,40}line \d+ column \d+|extra data: line \d+`),
	ruleFrom(srcGoJSON, ClassParse, 4, "Go's JSON decoder failed", `invalid character '.{1,4}' (?:looking for|after|in)|unexpected end of json input`),
	ruleFrom(srcXMLParsers, ClassParse, 4, "the XML is not well formed", `data at the root level is invalid|root element is missing|must be terminated by the matching end-tag|does not match the end tag|element type "[^"]*" must be|content is not allowed in trailing section|invalid byte \d of \d-byte utf-8`),
	ruleFrom(srcBCCodes, ClassParse, 4, "the request body could not be read", `invalid request body|request body is (?:not valid|invalid|malformed|not well-formed)|(?:body|payload|document) is not valid (?:json|xml)|could not read (?:the )?(?:document|json|request)|unrecognized token`),
	ruleFrom(srcODataReader, ClassParse, 4, "the OData reader met an unexpected node", `unexpected '\w+' node|'\w+' node was expected|reading from the (?:json|xml) reader|(?:json|xml) reader (?:error|failed|exception)`),
	rule(ClassParse, 4, "unsupported media type", `unsupported (?:media type|content-?type)|(?:content-?type|media type)\b[^.]{0,50}\bnot supported|invalid (?:utf-?8|byte sequence|character encoding)|encoding error`),

	rule(ClassDuplicate, 4, "duplicate", `duplicate|\bdup_|_dup\b`),
	rule(ClassDuplicate, 4, "already exists", `already exists?|already (?:in use|been used|been taken|taken|registered|present)|contact_exists|already (?:a |an )?(?:list )?member\b`),
	rule(ClassDuplicate, 4, "unique constraint", `unique (?:constraint|key|index)|uniqueness`),
	rule(ClassDuplicate, 2, "must be unique", `must be unique`),

	rule(ClassMissing, 4, "required field", `required (?:merge |custom )?field|must have a value|enter (?:a )?values?\b|cannot be zero or empty|left blank|is required|are required|required fields? (?:are |is )?missing|required[_ ]field[_ ]missing|required propert(?:y|ies)|is mandatory|must be provided|(?:mandatory|required) field (?:is )?not set|(?:is|are) a required (?:value|field|property|parameter)|(?:were|was) not set`),
	ruleFrom(srcSQL, ClassMissing, 4, "a NOT NULL column left empty", `violates not-null constraint|does not allow nulls|value null into column`),
	rule(ClassMissing, 2, "blank or empty", `\b(?:blank|empty)\b`),
	rule(ClassMissing, 4, "missing value", `\bmissing\b|cannot be (?:blank|empty|null)|(?:must|should) not be (?:blank|empty|null)|not provided|no value (?:was )?(?:given|provided)`),

	refusal(ClassValue, 4, "closed accounting period", `period\b[^.]{0,40}\b(?:is |was )?(?:closed|locked)\b|(?:closed|locked) (?:accounting |posting )?period|period[_ ]closed`),
	refusal(ClassValue, 4, "posting date not allowed", `allowed posting dates?|posting date\b[^.]{0,60}\b(?:not within|outside)`),
	refusal(ClassValue, 4, "validation rule", `field_custom_validation_exception|validation rule|cannot be in the (?:past|future)|cannot be set backwards`),
	refusal(ClassValue, 4, "not allowed for the subsidiary", `subsidiary[_ ]mismatch|not (?:assigned|available|valid|allowed) (?:to|for|in) (?:the )?subsidiary`),
	refusal(ClassValue, 4, "currency not allowed", `base currency|currency\b[^.]{0,40}\bnot (?:valid|allowed|permitted|enabled|available) for`),
	// NetSuite refuses a currency its subsidiary does not allow with the generic
	// INVALID_KEY_OR_REF ("Invalid currency reference key 4 for subsidiary 2"): the currency
	// exists, the record's context disallows it, which the class definitions call value.
	// Named in words, it outweighs the code, as a quota outweighs the 403 that carried it.
	refusalFrom(srcNetSuiteCodes, ClassValue, 10, "currency not allowed for the subsidiary", `currency (?:reference )?key\b[^.]{0,20}\bfor (?:the )?subsidiary`),
	refusal(ClassValue, 3, "credit or stock rule", `credit (?:limit|hold)|insufficient (?:inventory|stock|quantity)|not enough (?:inventory|stock)|out of stock`),
	refusal(ClassValue, 2, "approval or hold", `approval (?:is )?(?:required|pending)|pending approval|on hold`),
	refusal(ClassValue, 4, "consent or compliance", `opted out|cannot be re-?(?:subscribed|added|imported)|compliance (?:state|review)|permanently deleted`),
	rule(ClassValue, 2, "invalid", `invalid`),
	rule(ClassValue, 3, "invalid enumeration", `invalid enumeration`),
	ruleFrom(srcBCCodes, ClassValue, 4, "one field over its length", `(?:field|column|property|attribute|value)\b[^.]{0,40}\b(?:is |was )?too (?:large|long|big)|would be truncated|string or binary data|(?:max(?:imum)?|limit) of [\d,]+ characters|[\d,]+[- ]characters? limit|no more than [\d,]+ characters`),
	ruleFrom(srcBCCodes, ClassValue, 5, "one value over its size", `\bvalue\b[^.]{0,30}\b(?:exceeds|is over|is larger than|is bigger than) (?:the )?max(?:imum)? (?:size|length)`),
	rule(ClassValue, 4, "value too long", `too long|string_too_long|data value too large|exceeds the maximum length|max(?:imum)?[ _-]?length|[\d,]+ characters or (?:fewer|less)|(?:more|longer) than [\d,]+ characters|at most [\d,]+ characters|exceeds? [\d,]+ characters`),
	rule(ClassValue, 3, "value not allowed", `not one of|must be one of|allowed (?:values|options)|valid (?:values|options|services|codes)|restricted picklist|bad value`),
	rule(ClassValue, 3, "wrong type or format", `value not of required type|not a valid (?:date|number|email|phone|value)|does not match the expected format|invalid format|(?:invalid|wrong|incorrect|bad) (?:date|email|phone|postal|zip|format|number|currency|country|state|boolean)`),
	rule(ClassValue, 2, "format standard named", `e\.164|iso[ -]?3166|iso[ -]?4217|yyyy-mm-dd|iso[ -]?8601`),
	rule(ClassValue, 2, "range rule", `must be (?:greater|less|positive|at least|at most|between|today|in the (?:past|future)|on or (?:before|after))|out of range`),
	rule(ClassValue, 2, "address validation", `address validation|please select a (?:state|country)|problem with this (?:state|country)`),
	rule(ClassValue, 1, "not valid", `not (?:a )?valid|not supported`),

	rule(ClassReference, 4, "invalid reference", `invalid[_ ](?:key[_ ]or[_ ]ref|reference|cross[_ ]reference)`),
	rule(ClassReference, 4, "reference key", `reference key|invalid .{0,30}reference|references? (?:a |an )?(?:non-?existent|unknown|deleted)`),
	rule(ClassReference, 4, "not found", `not found|(?:could|can)(?:n't| ?not) be found|(?:could|can)(?:n't| ?not) find|unable to find`),
	rule(ClassReference, 4, "does not exist", `does ?n[o']t exist|rcrd_dsnt_exist|no longer exists|no (?:such|matching) (?:record|customer|item|vendor|account|contact|product|order)|unknown (?:customer|item|vendor|account|record|sku|product|contact|carrier|warehouse|location)|entity_is_deleted|has been deleted|was deleted`),
	rule(ClassReference, 4, "malformed id", `malformed[_ ]id|id value of incorrect type|not a valid (?:record |internal )?id\b|invalid (?:record |internal |entity )?id\b`),
	ruleFrom(srcSalesforceSOAP, ClassReference, 4, "a record of the wrong type", `is not an? (?:inventory|service|non-?inventory|assembly|kit|serial\w*|lot\w*|stock|posting|sales|purchase|expense|income|bank|parent|child) (?:item|account|customer|vendor|record|entity|location)\b|(?:wrong|invalid|unexpected) (?:record |entity |object )?type of (?:record|entity|object)|record type (?:mismatch|is not (?:allowed|valid))`),
	ruleFrom(srcSQL, ClassReference, 4, "a foreign key names no row", `violates foreign key constraint|conflicted with the foreign key constraint|foreign key constraint (?:fails|violation)`),
	ruleFrom(srcBCCodes, ClassReference, 4, "malformed GUID (a record id)", `invalid format of guid|not a valid (?:guid|uuid)|invalid (?:guid|uuid)\b|guid string`),
	refusal(ClassReference, 4, "inactive or blocked record", `\binactive\b|inactive_|is not active|no longer active|\bis blocked\b|blocked (?:for|with)`),
	refusal(ClassReference, 4, "closed record referenced", `(?:base )?(?:document|order|invoice|quote)s? (?:has |have |is |are )?(?:already )?(?:been )?closed`),
	refusal(ClassReference, 4, "account deactivated", `account (?:is |has been )?(?:deactivated|disconnected|not connected)|(?:is not|isn't) connected or has been deactivated`),
	rule(ClassReference, 1, "did you mean", `did you mean`),
}
