package ai

import (
	"strings"
	"unicode"
)

// The vendor catalogues are the diagnoser's first and strongest evidence: each vendor's
// published error codes, mapped to a class by what the vendor's reference says the code
// means (never by the corpora's texts), each naming the page its meaning comes from.
// Evidence ranks: the vendor's code, then the HTTP status as that vendor uses it, then the
// message's wording; the rationale says which decided.

// source is a reference a code's or a rule's meaning comes from.
type source struct{ title, url string }

func (s source) String() string {
	if s.url == "" {
		return s.title
	}
	return s.title + " (" + s.url + ")"
}

var (
	srcNetSuiteCodes   = source{"NetSuite Help Center, SOAP web services error status codes", "https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_N3539978.html"}
	srcNetSuiteFaults  = source{"NetSuite Help Center, SOAP fault status codes", "https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_N3539420.html"}
	srcNetSuiteREST    = source{"NetSuite Help Center, error handling in REST web services", "https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_156570709583.html"}
	srcNetSuiteConcur  = source{"NetSuite Help Center, errors related to concurrency violations", "https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/bridgehead_1525252812.html"}
	srcNetSuiteRESTlet = source{"NetSuite Help Center, SuiteScript 2.x RESTlet error handling", "https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_4634920277.html"}
	srcSalesforceSOAP  = source{"Salesforce SOAP API, StatusCode enumeration (core data objects)", "https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm"}
	srcSalesforceREST  = source{"Salesforce REST API, status codes and error responses", "https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm"}
	srcSalesforceBulk  = source{"Salesforce Bulk API, errors", "https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/asynch_api_reference_errors.htm"}
	srcBCCodes         = source{"Business Central, troubleshooting REST API/OData calls: OData error codes", "https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/webservices/dynamics-error-codes"}
	srcMailchimp       = source{"Mailchimp Marketing API, errors (error glossary)", "https://mailchimp.com/developer/marketing/docs/errors/"}
	srcMailchimpList   = source{"Mailchimp Marketing API, list members: add member (400 Member Exists and the audience's compliance refusals)", "https://mailchimp.com/developer/marketing/api/list-members/add-member-to-list/"}
	srcShipStation     = source{"ShipStation API, error codes (error_source, error_type, error_code)", "https://docs.shipstation.com/apis/shipengine/docs/reference/errors-codes"}
	srcShipStationRate = source{"ShipStation API, usage and rate limits", "https://docs.shipstation.com/rate-limits"}
	srcHubSpot         = source{"HubSpot API, error handling (categories)", "https://developers.hubspot.com/docs/api-reference/error-handling"}
	srcRFC9110         = source{"RFC 9110 HTTP Semantics, section 15 (status codes)", "https://www.rfc-editor.org/rfc/rfc9110#section-15"}
	srcRFC6585         = source{"RFC 6585, 429 Too Many Requests", "https://www.rfc-editor.org/rfc/rfc6585#section-4"}
	srcRFC6749         = source{"RFC 6749 OAuth 2.0, section 5.2 (error responses)", "https://www.rfc-editor.org/rfc/rfc6749#section-5.2"}
	srcNode            = source{"Node.js errors, common system errors", "https://nodejs.org/api/errors.html#common-system-errors"}
	srcJava            = source{"Java SE API, java.net / javax.net.ssl exceptions; Jackson databind exceptions", "https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/net/package-summary.html"}
	srcDotNet          = source{".NET API, System.Net.Http / System.Net.Sockets / System.Text.Json exceptions", "https://learn.microsoft.com/en-us/dotnet/api/system.net.http.httprequestexception"}
	srcDotNetStatus    = source{".NET API, HttpStatusCode enumeration (RFC 9110 reason phrases)", "https://learn.microsoft.com/en-us/dotnet/api/system.net.httpstatuscode"}
	srcPython          = source{"Python requests, exceptions", "https://requests.readthedocs.io/en/latest/api/#exceptions"}
	srcNetSuiteSS      = source{"NetSuite Help Center, SuiteScript 2.x errors (error.Type)", "https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_159469488562.html"}
	srcBCLimits        = source{"Business Central, current API limits (requests, $batch operations, page size, request size)", "https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/api-reference/v2.0/dynamics-current-limits"}
	srcHubSpotLimits   = source{"HubSpot API, batch endpoints' input limits (e.g. associations batch read, at most 1,000 ids)", "https://developers.hubspot.com/changelog/bug-fix-batch-read-limit-for-hubspot-associations-api"}
	srcMailchimpBatch  = source{"Mailchimp Marketing API, batch subscribe or unsubscribe list members (up to 500 members per call)", "https://mailchimp.com/developer/marketing/api/lists/batch-subscribe-or-unsubscribe/"}
	srcJSONSchema      = source{"JSON Schema Validation, maxItems and maxProperties (the wording schema validators answer with)", "https://json-schema.org/draft/2020-12/json-schema-validation#section-6.4.1"}
	srcRFC6585Headers  = source{"RFC 6585, 431 Request Header Fields Too Large", "https://www.rfc-editor.org/rfc/rfc6585#section-5"}
	srcUndici          = source{"undici (the fetch of Node.js), errors: SocketError, ConnectTimeoutError, HeadersTimeoutError, BodyTimeoutError", "https://github.com/nodejs/undici/blob/main/docs/docs/api/Errors.md"}
	srcFetch           = source{"WHATWG Fetch standard: a network error rejects fetch with a TypeError (Node.js: \"fetch failed\")", "https://fetch.spec.whatwg.org/#fetch-method"}
	srcODataReader     = source{"Business Central, troubleshooting REST API/OData calls: BadRequest_* is a malformed request; its OData reader names the JSON node it could not read", "https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/webservices/dynamics-error-codes"}
	srcWCF             = source{".NET WCF, MaxReceivedMessageSize (the message size quota); ASP.NET, httpRuntime maxRequestLength", "https://learn.microsoft.com/en-us/dotnet/api/system.servicemodel.channels.transportbindingelement.maxreceivedmessagesize"}
	srcNodeTLS         = source{"Node.js TLS: certificate verification errors (OpenSSL's X509 codes)", "https://nodejs.org/api/tls.html#x509-certificate-error-codes"}
	srcApacheHTTP      = source{"Apache HttpClient, NoHttpResponseException (the target server failed to respond)", "https://hc.apache.org/httpcomponents-core-4.4.x/current/httpcore/apidocs/org/apache/http/NoHttpResponseException.html"}
	srcCloudflare      = source{"Cloudflare, 5xx errors: 521 web server down, 522 connection timed out, 523 origin unreachable, 524 a timeout occurred, 525/526 TLS", "https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-5xx-errors/"}
	srcPythonJSON      = source{"Python json module, JSONDecodeError messages", "https://docs.python.org/3/library/json.html#json.JSONDecodeError"}
	srcGoJSON          = source{"Go encoding/json, SyntaxError messages", "https://pkg.go.dev/encoding/json#SyntaxError"}
	srcXMLParsers      = source{".NET XmlException and Java SAXParseException messages (well-formedness errors)", "https://learn.microsoft.com/en-us/dotnet/api/system.xml.xmlexception"}
	srcAWSThrottle     = source{"AWS API, throttling errors (ThrottlingException \"Rate exceeded\", S3 SlowDown)", "https://docs.aws.amazon.com/general/latest/gr/api-retries.html"}
	srcRFC4918         = source{"RFC 4918 (WebDAV), 423 Locked", "https://www.rfc-editor.org/rfc/rfc4918#section-11.3"}
	srcSQL             = source{"PostgreSQL error codes (23502 not_null_violation, 23503 foreign_key_violation) and SQL Server's messages 515 and 547", "https://www.postgresql.org/docs/current/errcodes-appendix.html"}
	srcDotNetWeb       = source{".NET WebException status NameResolutionFailure (the remote name could not be resolved)", "https://learn.microsoft.com/en-us/dotnet/api/system.net.webexceptionstatus"}
	srcEnvoy           = source{"Envoy proxy, response flags (UH: no healthy upstream, UF: upstream connection failure, UT: upstream request timeout)", "https://www.envoyproxy.io/docs/envoy/latest/configuration/observability/access_log/usage#config-access-log-format-response-flags"}
	// srcWording: wording rules written from the class definitions (diagnosis.go) rather
	// than from one vendor's page; a rule written from one vendor's page cites that page.
	srcWording = source{"the wording vendors' error references share for this kind of failure (class definitions, shared/ai/diagnosis.go)", ""}
)

// vendorCode is one code of a vendor's catalogue. A code that names no class by itself
// (NetSuite's USER_ERROR, HubSpot's VALIDATION_ERROR) has class "": the wording decides.
// weight says how firmly the code decides: codeDecisive for a code whose meaning is the
// class, codeHint for one a more specific wording may overrule.
type vendorCode struct {
	code    string
	class   ErrorClass
	weight  int
	meaning string
	src     source
}

const (
	codeDecisive = 6
	codeHint     = 2
)

// catalogue is one vendor's codes; prefixes map a code family (Business Central's
// Authentication_*, NetSuite's DUP_*) to a class.
type catalogue struct {
	vendor   string
	names    []string // how ExternalSystem may name the vendor, lower-case
	codes    []vendorCode
	prefixes []vendorCode
	// statuses are how this vendor uses an HTTP status where it differs from RFC 9110.
	statuses map[int]statusMeaning
	index    map[string]vendorCode
}

func (c *catalogue) build() *catalogue {
	c.index = make(map[string]vendorCode, len(c.codes))
	for _, v := range c.codes {
		c.index[normCode(v.code)] = v
	}
	return c
}

// lookup finds code (as written in an error) in the catalogue.
func (c *catalogue) lookup(code string) (vendorCode, bool) {
	n := normCode(code)
	if n == "" {
		return vendorCode{}, false
	}
	if v, ok := c.index[n]; ok {
		return v, true
	}
	// A family is matched with its separator: DUP_ENTITY is NetSuite's DUP_ family, the
	// generic DUPLICATE is not.
	raw := strings.ToLower(strings.TrimSpace(code))
	for _, p := range c.prefixes {
		if strings.HasPrefix(raw, strings.ToLower(p.code)) {
			return p, true
		}
	}
	return vendorCode{}, false
}

// normCode compares codes however a vendor or a client library spells them:
// "Member Exists", "MemberExists" and "member_exists" are one code; a Java or .NET
// exception's package is dropped.
func normCode(code string) string {
	code = strings.TrimSpace(code)
	if isQualified(code) {
		code = code[strings.LastIndexByte(code, '.')+1:]
	}
	var b strings.Builder
	for _, r := range code {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// isQualified reports whether code looks like a qualified type name (java.net.X, System.Net.X).
func isQualified(code string) bool {
	if strings.ContainsAny(code, " _") {
		return false
	}
	parts := strings.Split(code, ".")
	return len(parts) >= 2 && len(parts[len(parts)-1]) > 0 && unicode.IsUpper(rune(parts[len(parts)-1][0]))
}

// catalogues lists every vendor's; runtimeCatalogue (exception and errno names) applies to
// every system.
func catalogues() []*catalogue {
	return []*catalogue{netsuiteCatalogue, salesforceCatalogue, businessCentralCatalogue,
		mailchimpCatalogue, shipstationCatalogue, hubspotCatalogue}
}

// vendorOf finds the catalogue of the system an error comes from, nil when none names it.
func vendorOf(system string) *catalogue {
	s := strings.ToLower(system)
	if s == "" {
		return nil
	}
	for _, c := range catalogues() {
		for _, n := range c.names {
			if strings.Contains(s, n) {
				return c
			}
		}
	}
	return nil
}

// codeTokens are the message's words shaped like codes: upper-case with underscores
// (REQUEST_LIMIT_EXCEEDED), SOAP faults and exception names (InvalidSessionFault,
// java.net.SocketTimeoutException), errno names (ECONNRESET).
func codeTokens(msg string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(msg, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.')
	}) {
		w = strings.Trim(w, ".")
		switch {
		case len(w) < 5:
		case strings.Contains(w, "_") && w == strings.ToUpper(w):
			out = append(out, w)
		case strings.HasSuffix(w, "Fault") || strings.HasSuffix(w, "Exception"):
			out = append(out, w)
		case errnoShape(w):
			out = append(out, w)
		}
	}
	return out
}

func errnoShape(w string) bool {
	return len(w) >= 6 && w[0] == 'E' && w == strings.ToUpper(w) && !strings.ContainsAny(w, "_.0123456789")
}
