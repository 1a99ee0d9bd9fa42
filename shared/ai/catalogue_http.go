package ai

var (
	ssCode = decisive(srcShipStation)
	ssHint = hint(srcShipStation)
)

// shipstationCatalogue: the error_code values of ShipStation API v2 (formerly ShipEngine),
// what integrations on v2 report. ShipStation v1 (ssapi.shipstation.com, the API the
// shipping connector speaks) sends no codes: its errors are ASP.NET's {"Message",
// "ModelState"} and are read by status and wording (shared/connector/vendors/shipstation).
var shipstationCatalogue = (&catalogue{
	vendor: "ShipStation",
	names:  []string{"shipstation", "shipengine"},
	codes: []vendorCode{
		decisive(srcShipStationRate)("rate_limit_exceeded", ClassRateLimit, "more requests than the account's limit per minute"),
		ssCode("unauthorized", ClassPermission, "the API key is missing or invalid"),
		ssCode("forbidden", ClassPermission, "the key may not perform the operation"),
		ssCode("subscription_inactive", ClassPermission, "the account's subscription is inactive"),
		ssCode("trial_expired", ClassPermission, "the account's trial expired"),
		ssCode("terms_not_accepted", ClassPermission, "the carrier's terms are not accepted"),
		ssCode("field_value_required", ClassMissing, "a required field has no value"),
		ssCode("request_body_required", ClassMissing, "the request has no body"),
		ssCode("customs_items_required", ClassMissing, "an international shipment lacks customs items"),
		ssCode("invalid_field_value", ClassValue, "a field's value is not valid"),
		ssCode("invalid_string_length", ClassValue, "a value is too long or too short"),
		ssCode("invalid_address", ClassValue, "an address is not valid"),
		ssCode("invalid_status", ClassValue, "the object's status does not allow the operation"),
		ssHint("field_conflict", ClassValue, "two fields' values conflict"),
		ssCode("invalid_identifier", ClassReference, "an id names no object of the account"),
		ssCode("carrier_disconnected", ClassReference, "the carrier account is disconnected"),
		ssCode("carrier_not_connected", ClassReference, "the carrier account is not connected"),
		ssCode("order_source_not_active", ClassReference, "the order source is not active"),
		ssCode("identifier_conflict", ClassDuplicate, "an object with the identifier exists"),
		ssCode("duplicated_name", ClassDuplicate, "an object with the name exists"),
		ssCode("not_found", ClassReference, "the object does not exist"),
		ssCode("timeout", ClassConnection, "the carrier or order source did not answer in time"),
		ssCode("invalid_file_size", ClassTooLarge, "the file's size is outside what the API accepts"),
		ssCode("invalid_file_type", ClassParse, "the file's type is not one the API reads"),
		ssCode("invalid_currency", ClassValue, "the currency is not valid"),
		ssCode("invalid_service", ClassValue, "the service is not valid for the carrier"),
		ssCode("identifiers_must_match", ClassValue, "two identifiers that must match do not"),
		ssCode("batch_cannot_be_modified", ClassValue, "the batch's status does not allow changes"),
		ssCode("unspecified", "", "no specific code; the message says why"),
		ssCode("unknown", "", "no specific code; the message says why"),
	},
}).build()

var (
	nodeCode   = decisive(srcNode)
	javaCode   = decisive(srcJava)
	dotnetCode = decisive(srcDotNet)
	pyCode     = decisive(srcPython)
	statusName = hint(srcDotNetStatus)
)

// runtimeCatalogue: errno and exception names of the runtimes connectors are written in,
// whatever the system.
var runtimeCatalogue = (&catalogue{
	vendor: "runtime",
	codes: []vendorCode{
		nodeCode("ECONNRESET", ClassConnection, "the peer reset the connection"),
		nodeCode("ECONNREFUSED", ClassConnection, "the target refused the connection"),
		nodeCode("ECONNABORTED", ClassConnection, "the connection was aborted"),
		nodeCode("ETIMEDOUT", ClassConnection, "connecting or reading timed out"),
		nodeCode("ESOCKETTIMEDOUT", ClassConnection, "the socket timed out"),
		nodeCode("ENOTFOUND", ClassConnection, "the host name did not resolve"),
		nodeCode("EAI_AGAIN", ClassConnection, "name resolution failed for now"),
		nodeCode("EHOSTUNREACH", ClassConnection, "the host is unreachable"),
		nodeCode("ENETUNREACH", ClassConnection, "the network is unreachable"),
		nodeCode("EPIPE", ClassConnection, "the connection broke while writing"),
		decisive(srcUndici)("UND_ERR_SOCKET", ClassConnection, "the socket failed or the other side closed it before an answer"),
		decisive(srcUndici)("UND_ERR_CONNECT_TIMEOUT", ClassConnection, "connecting timed out"),
		decisive(srcUndici)("UND_ERR_HEADERS_TIMEOUT", ClassConnection, "the answer's headers did not arrive in time"),
		decisive(srcUndici)("UND_ERR_BODY_TIMEOUT", ClassConnection, "the answer's body did not arrive in time"),
		decisive(srcUndici)("UND_ERR_CLOSED", ClassConnection, "the client's connection was closed"),
		decisive(srcNodeTLS)("CERT_HAS_EXPIRED", ClassConnection, "the server's TLS certificate has expired"),
		decisive(srcNodeTLS)("UNABLE_TO_VERIFY_LEAF_SIGNATURE", ClassConnection, "the server's TLS certificate could not be verified"),
		decisive(srcNodeTLS)("SELF_SIGNED_CERT_IN_CHAIN", ClassConnection, "the server's TLS certificate chain is self-signed"),
		decisive(srcNodeTLS)("DEPTH_ZERO_SELF_SIGNED_CERT", ClassConnection, "the server's TLS certificate is self-signed"),
		decisive(srcNodeTLS)("ERR_TLS_CERT_ALTNAME_INVALID", ClassConnection, "the server's TLS certificate does not name the host"),
		decisive(srcApacheHTTP)("NoHttpResponseException", ClassConnection, "the target server failed to respond"),
		decisive(srcAWSThrottle)("ThrottlingException", ClassRateLimit, "the request rate exceeded the account's limit"),
		decisive(srcAWSThrottle)("SlowDown", ClassRateLimit, "reduce the request rate"),
		javaCode("SocketTimeoutException", ClassConnection, "connecting or reading a socket timed out"),
		javaCode("ConnectException", ClassConnection, "the connection was refused or failed"),
		javaCode("UnknownHostException", ClassConnection, "the host name did not resolve"),
		javaCode("NoRouteToHostException", ClassConnection, "the host is unreachable"),
		javaCode("SSLHandshakeException", ClassConnection, "the TLS handshake failed"),
		javaCode("HttpTimeoutException", ClassConnection, "the HTTP exchange timed out"),
		javaCode("EOFException", ClassConnection, "the answer's stream ended early (the connection closed)"),
		javaCode("JsonParseException", ClassParse, "the JSON could not be parsed"),
		javaCode("MismatchedInputException", ClassParse, "the JSON did not fit the type it was read into"),
		javaCode("InvalidFormatException", ClassParse, "a JSON value could not be read as its type"),
		javaCode("SAXParseException", ClassParse, "the XML could not be parsed"),
		javaCode("XMLStreamException", ClassParse, "the XML stream could not be read"),
		dotnetCode("SocketException", ClassConnection, "a socket operation failed"),
		dotnetCode("TaskCanceledException", ClassConnection, "the HTTP request timed out"),
		dotnetCode("TimeoutException", ClassConnection, "the operation timed out"),
		dotnetCode("AuthenticationException", ClassConnection, "the TLS authentication failed"),
		hint(srcDotNet)("HttpRequestException", ClassConnection, "the HTTP request failed, mostly before an answer (connection, DNS, TLS)"),
		dotnetCode("JsonException", ClassParse, "the JSON could not be read"),
		dotnetCode("JsonReaderException", ClassParse, "the JSON could not be read"),
		dotnetCode("XmlException", ClassParse, "the XML could not be read"),
		// .NET's HttpStatusCode names, which clients report as the error's code.
		statusName("BadGateway", ClassConnection, "502: no valid answer from the target behind the gateway"),
		statusName("GatewayTimeout", ClassConnection, "504: the target behind the gateway did not answer in time"),
		statusName("RequestTimeout", ClassConnection, "408: the request did not arrive in time"),
		statusName("Gone", ClassReference, "410: the resource is no longer available"),
		statusName("Locked", ClassIntermittent, "423: the resource is locked"),
		statusName("NotFound", ClassReference, "404: the resource does not exist"),
		statusName("InternalServerError", ClassIntermittent, "500: the server failed"),
		statusName("ServiceUnavailable", ClassIntermittent, "503: the service is unavailable for now"),
		statusName("TooManyRequests", ClassRateLimit, "429: too many requests"),
		statusName("RequestEntityTooLarge", ClassTooLarge, "413: the content is too large"),
		statusName("RequestHeaderFieldsTooLarge", ClassTooLarge, "431: the request's header fields are too large"),
		statusName("RequestUriTooLong", ClassTooLarge, "414: the URI is too long"),
		statusName("UnsupportedMediaType", ClassParse, "415: the media type is not supported"),
		statusName("PreconditionFailed", ClassIntermittent, "412: the record changed since it was read"),
		statusName("Unauthorized", ClassPermission, "401: no valid credentials"),
		statusName("Forbidden", ClassPermission, "403: the caller is refused"),
		pyCode("ConnectTimeout", ClassConnection, "connecting timed out"),
		pyCode("ReadTimeout", ClassConnection, "reading the answer timed out"),
		pyCode("ConnectionError", ClassConnection, "the connection failed"),
		pyCode("JSONDecodeError", ClassParse, "the JSON could not be decoded"),
		decisive(srcRFC6749)("invalid_grant", ClassPermission, "the grant or refresh token is invalid, expired or revoked"),
		decisive(srcRFC6749)("invalid_client", ClassPermission, "the client failed to authenticate"),
	},
}).build()

// statusMeaning is what an HTTP status says about the class, and how firmly.
type statusMeaning struct {
	class   ErrorClass
	weight  int
	meaning string
	src     source
}

// httpStatuses are the statuses' meanings by RFC 9110 (and RFC 6585 for 429). A
// vendor's own use of a status (catalogue.statuses) takes precedence.
var httpStatuses = map[int]statusMeaning{
	400: {ClassValue, 1, "bad request", srcRFC9110},
	401: {ClassPermission, 4, "unauthorized: no valid credentials", srcRFC9110},
	403: {ClassPermission, 3, "forbidden: the server refuses the caller", srcRFC9110},
	404: {ClassReference, 2, "not found", srcRFC9110},
	408: {ClassConnection, 4, "request timeout: the request did not arrive in time", srcRFC9110},
	409: {ClassDuplicate, 2, "conflict with the target resource's state", srcRFC9110},
	410: {ClassReference, 3, "gone: the resource is no longer available", srcRFC9110},
	412: {ClassIntermittent, 3, "precondition failed: the record changed since it was read", srcRFC9110},
	413: {ClassTooLarge, 4, "content too large", srcRFC9110},
	414: {ClassTooLarge, 4, "URI too long", srcRFC9110},
	415: {ClassParse, 4, "unsupported media type", srcRFC9110},
	431: {ClassTooLarge, 4, "request header fields too large", srcRFC6585Headers},
	422: {ClassValue, 1, "unprocessable content", srcRFC9110},
	423: {ClassIntermittent, 3, "locked: the resource is locked for now", srcRFC4918},
	429: {ClassRateLimit, 4, "too many requests", srcRFC6585},
	500: {ClassIntermittent, 2, "internal server error", srcRFC9110},
	502: {ClassConnection, 4, "bad gateway: no valid answer from the target behind the gateway", srcRFC9110},
	503: {ClassIntermittent, 4, "service unavailable for now", srcRFC9110},
	504: {ClassConnection, 4, "gateway timeout: the target behind the gateway did not answer in time", srcRFC9110},
	// Cloudflare's own statuses in front of a vendor's origin: each says the origin was not
	// reached or did not answer.
	521: {ClassConnection, 4, "the origin web server refused the connection", srcCloudflare},
	522: {ClassConnection, 4, "connecting to the origin timed out", srcCloudflare},
	523: {ClassConnection, 4, "the origin is unreachable", srcCloudflare},
	524: {ClassConnection, 4, "the origin did not answer in time", srcCloudflare},
	525: {ClassConnection, 4, "the TLS handshake with the origin failed", srcCloudflare},
	526: {ClassConnection, 4, "the origin's TLS certificate is invalid", srcCloudflare},
}

// statusEvidence is the meaning of status as the vendor of catalogue c (nil: none known)
// uses it.
func statusEvidence(c *catalogue, status int) (statusMeaning, bool) {
	if c != nil {
		if m, ok := c.statuses[status]; ok {
			return m, m.class != ""
		}
	}
	m, ok := httpStatuses[status]
	return m, ok
}
