package ai

import "testing"

// probe is an error as a vendor or runtime writes it and the class the definitions give it.
type probe struct {
	system, code, msg string
	want              ErrorClass
}

func checkProbes(t *testing.T, probes []probe) {
	t.Helper()
	for _, c := range probes {
		if a := analyze(DiagnosisRequest{ExternalSystem: c.system, ErrorCode: c.code, Message: c.msg}); a.cls.class != c.want {
			t.Errorf("%s %q: %s, want %s", c.code, c.msg, a.cls.class, c.want)
		}
	}
}

// TestLimitWordings: requests, batches, id lists, files, pages and payloads over a size
// or count limit, worded the ways the vendors' limit pages and common servers word them
// (written for this test from those pages, not from a corpus), are too_large; one value
// over its size stays value.
func TestLimitWordings(t *testing.T) {
	checkProbes(t, []probe{
		{"salesforce", "LIMIT_EXCEEDED", "The number of subrequests exceeds the limit of 25", ClassTooLarge},
		{"salesforce", "", "Composite request can contain at most 25 subrequests", ClassTooLarge},
		{"salesforce", "413", "Request body is too large", ClassTooLarge},
		{"salesforce", "EXCEEDED_ID_LIMIT", "record limit reached. cannot submit more than 200 records into this call", ClassTooLarge},
		{"salesforce", "InvalidBatch", "Batch size exceeds the maximum of 10,000 records", ClassTooLarge},
		{"salesforce", "ClientInputError", "Exceeded max number of characters allowed in a file: 10000000", ClassTooLarge},
		{"salesforce", "", "Maximum number of records exceeded", ClassTooLarge},
		{"salesforce", "", "Bulk API 2.0: the CSV upload exceeds 150 MB", ClassTooLarge},
		{"netsuite", "", "SuiteQL: the query returned more than 100,000 results; narrow the query.", ClassTooLarge},
		{"netsuite", "ExceededRecordCountFault", "Number of records in request exceeds the limit", ClassTooLarge},
		{"netsuite", "400", "The request payload exceeds the maximum size of 104857600 bytes", ClassTooLarge},
		{"netsuite", "", "The request size exceeds the 10MB limit for RESTlets.", ClassTooLarge},
		{"netsuite", "USER_ERROR", "Transactions may have at most 5000 lines.", ClassTooLarge},
		{"businesscentral", "", "The request exceeded the maximum supported size. Request Entity Too Large", ClassTooLarge},
		{"businesscentral", "BadRequest", "The number of operations in a batch request exceeds the maximum of 100", ClassTooLarge},
		{"businesscentral", "", "Changeset limit exceeded: a change set may contain at most 100 requests", ClassTooLarge},
		{"businesscentral", "", "Page size 50000 is larger than the maximum page size 20000", ClassTooLarge},
		{"hubspot", "VALIDATION_ERROR", "Batch size of 150 exceeds the maximum batch size of 100", ClassTooLarge},
		{"hubspot", "", "Too many inputs: a batch may contain up to 100 inputs", ClassTooLarge},
		{"hubspot", "414", "URI Too Long", ClassTooLarge},
		{"hubspot", "", "Cannot associate more than 10000 records with one record", ClassTooLarge},
		{"mailchimp", "", "Request entity too large: the batch operations payload exceeds 500 operations", ClassTooLarge},
		{"mailchimp", "", "You can only send 1000 operations in a batch", ClassTooLarge},
		{"shipstation", "", "The request body cannot exceed 10 MB", ClassTooLarge},
		{"shipstation", "request_too_large", "A batch can contain a maximum of 500 shipments", ClassTooLarge},
		{"shipstation", "", "Too many shipments in one batch: the limit is 500", ClassTooLarge},
		{"shipstation", "", "Label PDF exceeds the maximum file size", ClassTooLarge},
		{"", "", "HTTP 413 Payload Too Large", ClassTooLarge},
		{"", "", "413 Content Too Large", ClassTooLarge},
		{"", "", "java.io.IOException: Exceeded maximum allowed payload size", ClassTooLarge},
		{"", "", "Request must be smaller than 6291456 bytes for the InvokeFunction operation", ClassTooLarge},
		{"", "", "MaxReceivedMessageSize quota (65536) has been exceeded", ClassTooLarge},
		{"", "", "io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: gRPC message exceeds maximum size 4194304", ClassTooLarge},
		{"", "", "Maximum request length exceeded.", ClassTooLarge},
		{"", "", "The list of ids is too long", ClassTooLarge},
		{"", "", "PayloadTooLargeError: request entity too large", ClassTooLarge},
		{"", "", "field comments: value exceeds the maximum size of 255", ClassValue},
		{"", "", "Name: String length exceeds 80 characters", ClassValue},
	})
}

// TestRuntimeAndVendorWordings: one error per class as runtimes (Go, Node, Python, Java,
// .NET, curl, proxies) and the vendors word it, written for this test from their
// documentation.
func TestRuntimeAndVendorWordings(t *testing.T) {
	C, I, R, P, M, V, F, D, B := ClassConnection, ClassIntermittent, ClassRateLimit, ClassParse, ClassMissing, ClassValue, ClassReference, ClassDuplicate, ClassPermission
	checkProbes(t, []probe{
		{"", "", "dial tcp 10.0.0.5:443: i/o timeout", C},
		{"", "", "net/http: TLS handshake timeout", C},
		{"", "", "read tcp 10.0.0.2:51234->10.0.0.5:443: read: connection reset by peer", C},
		{"", "", "HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded with url: /v1 (Caused by NewConnectionError: Failed to establish a new connection: [Errno 111] Connection refused)", C},
		{"", "", "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))", C},
		{"", "HttpRequestException", "No such host is known.", C},
		{"", "", "javax.net.ssl.SSLException: Read timed out", C},
		{"", "", "upstream connect error or disconnect/reset before headers. reset reason: connection failure", C},
		{"", "", "The underlying connection was closed: An unexpected error occurred on a send.", C},
		{"", "", "Unable to read data from the transport connection: An existing connection was forcibly closed by the remote host.", C},
		{"", "", "curl: (28) Operation timed out after 30000 milliseconds with 0 bytes received", C},
		{"", "", "org.apache.http.NoHttpResponseException: The target server failed to respond", C},
		{"", "CERT_HAS_EXPIRED", "certificate has expired", C},
		{"", "", "unable to verify the first certificate", C},
		{"", "", "self signed certificate in certificate chain", C},
		{"", "", "The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.", C},
		{"", "", "context deadline exceeded (Client.Timeout exceeded while awaiting headers)", C},
		{"", "522", "Connection timed out", C},
		{"", "521", "Web server is down", C},
		{"", "524", "A timeout occurred", C},
		{"", "", "java.net.http.HttpConnectTimeoutException: HTTP connect timed out", C},
		{"", "", "503 Service Unavailable: The server is temporarily unable to service your request due to maintenance downtime or capacity problems. Please try again later.", I},
		{"salesforce", "UNABLE_TO_LOCK_ROW", "unable to obtain exclusive access to this record", I},
		{"", "", "Transaction (Process ID 57) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction.", I},
		{"", "40001", "could not serialize access due to concurrent update", I},
		{"hubspot", "423", "Locked: the record is being updated by another process; retry after 2 seconds", I},
		{"", "500", "Internal Server Error: An unexpected error occurred. Please try again.", I},
		{"shipstation", "unspecified", "An unexpected error occurred on our side. Please retry the request.", I},
		{"hubspot", "429", "You have reached your ten_secondly_rolling limit.", R},
		{"hubspot", "RATE_LIMIT", "You have reached your secondly limit.", R},
		{"salesforce", "", "ConcurrentPerOrgLongTxn Limit exceeded", R},
		{"", "", "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.", R},
		{"", "ThrottlingException", "Rate exceeded", R},
		{"", "SlowDown", "Please reduce your request rate.", R},
		{"mailchimp", "", "You have exceeded the limit of 10 simultaneous connections.", R},
		{"businesscentral", "429", "Too Many Requests: rate limit is exceeded, try again in 30 seconds", R},
		{"", "", "Unexpected token < in JSON at position 0", P},
		{"", "", "SyntaxError: Unexpected end of JSON input", P},
		{"", "", "Expecting value: line 1 column 1 (char 0)", P},
		{"", "", "invalid character '<' looking for beginning of value", P},
		{"businesscentral", "BadRequest", "Invalid Request Body", P},
		{"", "", "Data at the root level is invalid. Line 1, position 1.", P},
		{"", "", "Invalid byte 1 of 1-byte UTF-8 sequence.", P},
		{"", "", "The element type \"item\" must be terminated by the matching end-tag \"</item>\".", P},
		{"", "", "Request body is not valid JSON", P},
		{"", "", "Could not read document: Unrecognized token 'abc': was expecting ('true', 'false' or 'null')", P},
		{"", "415", "Content type 'text/plain;charset=UTF-8' not supported", P},
		{"", "", "Required field missing: [LastName]", M},
		{"", "", "Missing required parameter: ship_to.postal_code", M},
		{"", "", "should have required property 'sku'", M},
		{"", "", "Value cannot be null. (Parameter 'name')", M},
		{"", "", "No value given for one or more required parameters.", M},
		{"", "", "The Email field is required.", M},
		{"", "", "Customer Posting Group must have a value in Customer: No.=C00690. It cannot be zero or empty.", M},
		{"", "", "email_address: This value should not be blank.", M},
		{"netsuite", "INVALID_FLD_VALUE", "You have entered an Invalid Field Value 13/25/2026 for the following field: trandate", V},
		{"", "", "Amount must be greater than zero", V},
		{"salesforce", "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", "Status: bad value for restricted picklist field: Shipped", V},
		{"", "", "Postal code 1234 is not valid for country US", V},
		{"netsuite", "USER_ERROR", "The transaction date falls in a closed period.", V},
		{"businesscentral", "Application_DialogException", "Posting Date is not within your range of allowed posting dates.", V},
		{"", "", "Customer 10000 does not exist.", F},
		{"netsuite", "USER_ERROR", "Item 1234 is inactive.", F},
		{"businesscentral", "Internal_RecordNotFound", "The Item does not exist. Identification fields and values: No.='1996-S'", F},
		{"salesforce", "ENTITY_IS_DELETED", "entity is deleted", F},
		{"", "", "Invalid reference: account 4711 not found", F},
		{"", "", "Customer with id 123 could not be found", F},
		{"", "", "The record already exists.", D},
		{"mailchimp", "Member Exists", "x@example.com is already a list member.", D},
		{"", "409", "A contact with this email already exists", D},
		{"", "", "Violation of UNIQUE KEY constraint 'UQ_Customer_Email'. Cannot insert duplicate key.", D},
		{"", "401", "Unauthorized", B},
		{"", "403", "You do not have permission to perform this action", B},
		{"", "", "The access token expired", B},
		{"hubspot", "MISSING_SCOPES", "This app hasn't been granted all required scopes to make this call.", B},
		{"businesscentral", "Authorization_Failed", "The user does not have the permission to insert into table Customer.", B},
	})
}

// TestVendorErrorWordings: errors in each vendor's own shape (code and message as its
// error reference shows them), written for this test from those references.
func TestVendorErrorWordings(t *testing.T) {
	I, R, M, V, F, D, B := ClassIntermittent, ClassRateLimit, ClassMissing, ClassValue, ClassReference, ClassDuplicate, ClassPermission
	checkProbes(t, []probe{
		{"netsuite", "USER_ERROR", "Please enter value(s) for: Customer, Subsidiary", M},
		{"netsuite", "INVALID_KEY_OR_REF", "Invalid entity reference key 123.", F},
		{"netsuite", "RCRD_DSNT_EXIST", "That record does not exist.", F},
		{"netsuite", "DUP_ENTITY", "A customer record with this ID already exists. You must enter a unique customer ID for each record you create.", D},
		{"netsuite", "USER_ERROR", "Transaction is not in balance! amounts+taxes+shipping: 100.00, total amount: 90.00", V},
		{"netsuite", "USER_ERROR", "You cannot post to a closed period", V},
		{"netsuite", "INSUFFICIENT_PERMISSION", "You need the 'Lists -> Items' permission to access this page.", B},
		{"netsuite", "INVALID_SESSION", "Your connection has timed out. Please log in again.", B},
		{"netsuite", "WS_CONCUR_SESSION_DISALLWD", "Only one request may be made against a session at a time", R},
		{"netsuite", "USER_ERROR", "The Quantity field must be a positive number", V},
		{"businesscentral", "Internal_RecordNotFound", "The Customer does not exist. Identification fields and values: No.='C-99'", F},
		{"businesscentral", "Application_FieldValidationException", "Sell-to Customer No. must have a value in Sales Header: Document Type=Order, No.=1001. It cannot be zero or empty.", M},
		{"businesscentral", "Internal_EntityWithSameKeyExists", "The Sales Header already exists. Identification fields and values: Document Type='Order',No.='1001'", D},
		{"businesscentral", "Authorization_InsufficientPermissions", "You do not have the following permissions on TableData Sales Header: Insert", B},
		{"businesscentral", "Application_FieldValidationException", "Status must be equal to 'Open' in Sales Header: Document Type=Order, No.=1001. Current value is 'Released'.", V},
		{"businesscentral", "Application_DialogException", "Customer C-99 is blocked with type Ship.", F},
		{"businesscentral", "Internal_InvalidTableRelation", "The field Unit of Measure Code of table Sales Line contains a value (BOX) that cannot be found in the related table (Item Unit of Measure).", F},
		{"businesscentral", "Request_EntityChanged", "Another user has already changed the record.", I},
		{"businesscentral", "Authentication_InvalidCredentials", "The server has rejected the client credentials.", B},
		{"salesforce", "REQUIRED_FIELD_MISSING", "Required fields are missing: [LastName]", M},
		{"salesforce", "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id", F},
		{"salesforce", "DUPLICATE_VALUE", "duplicate value found: External_Id__c duplicates value on record with id: 0015g00000AbCdE", D},
		{"salesforce", "FIELD_CUSTOM_VALIDATION_EXCEPTION", "Close Date cannot be in the past", V},
		{"salesforce", "INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY", "insufficient access rights on cross-reference id", B},
		{"salesforce", "INVALID_FIELD", "No such column 'Foo__c' on entity 'Account'.", V},
		{"salesforce", "INVALID_SESSION_ID", "Session expired or invalid", B},
		{"salesforce", "INVALID_EMAIL_ADDRESS", "Email: invalid email address: bob@", V},
		{"salesforce", "INACTIVE_OWNER_OR_USER", "operation performed with inactive user", F},
		{"hubspot", "VALIDATION_ERROR", "Property values were not valid: 1234 was not a valid long.", V},
		{"hubspot", "CONFLICT", "Contact already exists. Existing ID: 12345", D},
		{"hubspot", "OBJECT_NOT_FOUND", "Object not found. objectId are usually numeric.", F},
		{"mailchimp", "ResourceNotFound", "The requested resource could not be found.", F},
		{"mailchimp", "Member Exists", "x@example.com is already a list member. Use PUT to insert or update list members.", D},
		{"mailchimp", "Invalid Resource", "x@example looks fake or invalid, please enter a real email address.", V},
		{"mailchimp", "Forbidden", "The API key provided is linked to a different datacenter", B},
		{"mailchimp", "API Key Invalid", "Your API key may be invalid, or you've attempted to access the wrong datacenter.", B},
		{"mailchimp", "Invalid Resource", "x@example.com was permanently deleted and cannot be re-imported. The contact must re-subscribe to get back on the list.", V},
		{"shipstation", "invalid_address", "Invalid ship_to address", V},
		{"shipstation", "invalid_identifier", "The carrier_id se-123 could not be found", F},
		{"shipstation", "unauthorized", "The API key is invalid", B},
		{"shipstation", "", "Order could not be found", F},
		{"hubspot", "", "The access token provided has expired", B},
		{"", "409", "Conflict: the version of the record you sent is out of date; reload it and try again", I},
		{"businesscentral", "", "The Item No. 1000 is not found in the related table", F},
		{"netsuite", "", "Invalid item reference key 55 for subsidiary 3.", F},
	})
}

// TestSizeWordsSplitFieldFromRequest: "too large" and "exceeds" about one field, column or
// value are value (with evidence, not the no-evidence default); about a request, file,
// page or answer, too_large.
func TestSizeWordsSplitFieldFromRequest(t *testing.T) {
	V, T := ClassValue, ClassTooLarge
	checkProbes(t, []probe{
		{"", "", "The size of field 'memo' exceeds the maximum of 4000 characters", V},
		{"", "", "Field 'description' is too large (max 255 bytes)", V},
		{"", "", "ORA-12899: value too large for column \"APP\".\"NAME\" (actual: 300, maximum: 255)", V},
		{"", "", "String or binary data would be truncated.", V},
		{"", "", "value too long for type character varying(50)", V},
		{"", "", "Data too long for column 'name' at row 1", V},
		{"hubspot", "VALIDATION_ERROR", "Property value exceeds the 65536 character limit", V},
		{"", "", "Name: ensure this field has no more than 80 characters.", V},
		{"", "413", "Request Entity Too Large", T},
		{"", "", "The uploaded file is too large. Maximum file size is 25 MB.", T},
		{"", "", "Attachment size exceeds the allowable limit", T},
		{"", "", "Request entity size of 12 MB exceeds the limit of 10 MB", T},
		{"", "", "The page size requested is too large; the maximum is 1000", T},
		{"", "", "Query result too large; narrow your filter.", T},
		{"", "", "Response too large to return", T},
	})
	for _, m := range []string{"The size of field 'memo' exceeds the maximum of 4000 characters", "Field 'description' is too large (max 255 bytes)",
		"String or binary data would be truncated.", "Name: ensure this field has no more than 80 characters."} {
		if c := classify(scope{}, "", m); c.decidedBy == nil {
			t.Errorf("%q: %s without evidence", m, c.class)
		}
	}
}

// TestStatusesAndDatabaseWordings: statuses as HTTP clients report them (bare, in .NET,
// Spring, Python and axios wording), and the database constraint errors a connector's
// own store answers with, written for this test from RFC 9110/4918 and the databases'
// error references.
func TestStatusesAndDatabaseWordings(t *testing.T) {
	C, I, R, P, V, F, D, B, T := ClassConnection, ClassIntermittent, ClassRateLimit, ClassParse, ClassValue, ClassReference, ClassDuplicate, ClassPermission, ClassTooLarge
	checkProbes(t, []probe{
		{"", "410", "Gone", F},
		{"hubspot", "423", "Locked", I},
		{"", "Locked", "The resource is locked", I},
		{"", "NotFound", "Response status code does not indicate success: 404 (Not Found).", F},
		{"", "", "Response status code does not indicate success: 503 (Service Unavailable).", I},
		{"", "", "Response status code does not indicate success: 429 (Too Many Requests).", R},
		{"", "", "Response status code does not indicate success: 413 (Request Entity Too Large).", T},
		{"", "", "Request failed with status code 502", C},
		{"", "", "HTTP Error 504: Gateway Time-out", C},
		{"", "", "status code 409: Conflict", D},
		{"", "", "412 Precondition Failed", I},
		{"", "", "415 Unsupported Media Type", P},
		{"", "", "401 Unauthorized", B},
		{"", "", "403 Forbidden", B},
		{"", "", "422 Unprocessable Entity: email is invalid", V},
		{"", "InternalServerError", "Internal Server Error", I},
		{"", "", "requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: https://api.example.com/v1/orders", I},
		{"", "", "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable: 503 Service Unavailable", I},
		{"", "", "org.springframework.web.client.HttpClientErrorException$TooManyRequests: 429 Too Many Requests", R},
		{"", "", "System.Net.WebException: The remote server returned an error: (504) Gateway Timeout.", C},
		{"", "", "System.Net.WebException: The remote server returned an error: (413) Request Entity Too Large.", T},
		{"", "", "The remote name could not be resolved: 'api.example.com'", C},
		{"", "", "java.net.SocketException: Connection reset", C},
		{"", "", "java.io.EOFException: \\n not found: limit=0 content=…", C},
		{"", "", "Connection pool shut down", C},
		{"", "", "psycopg2.errors.SerializationFailure: could not serialize access due to concurrent update", I},
		{"", "", "Lock wait timeout exceeded; try restarting transaction", I},
		{"", "", "ERROR 1213 (40001): Deadlock found when trying to get lock; try restarting transaction", I},
		{"", "", "duplicate key value violates unique constraint \"customers_email_key\"", D},
		{"", "", "insert or update on table \"orders\" violates foreign key constraint \"orders_customer_id_fkey\"", F},
		{"", "", "null value in column \"email\" violates not-null constraint", ClassMissing},
		{"", "", "Cannot insert the value NULL into column 'Email', table 'dbo.Customers'; column does not allow nulls. INSERT fails.", ClassMissing},
		{"", "", "The INSERT statement conflicted with the FOREIGN KEY constraint \"FK_Orders_Customers\".", F},
		{"", "", "Cannot insert duplicate key row in object 'dbo.Customers' with unique index 'IX_Email'.", D},
		{"", "", "invalid input syntax for type integer: \"abc\"", V},
		{"", "", "Conversion failed when converting date and/or time from character string.", V},
		{"", "", "numeric field overflow", V},
	})
}

// TestBusinessRuleRefusals: the vendors' business-rule refusals (credit limits, posted
// documents, periods, stock, subsidiaries, validation rules) are value; a referenced record
// that is blocked or of the wrong type is reference (issue 27's definitions).
func TestBusinessRuleRefusals(t *testing.T) {
	V, F, B, T := ClassValue, ClassReference, ClassPermission, ClassTooLarge
	checkProbes(t, []probe{
		{"netsuite", "USER_ERROR", "The customer's credit limit has been exceeded.", V},
		{"businesscentral", "Application_DialogException", "You cannot change the Currency Code because the document has been posted.", V},
		{"netsuite", "USER_ERROR", "The posting date is outside the allowed posting period.", V},
		{"netsuite", "USER_ERROR", "The accounting period is locked for Accounts Receivable.", V},
		{"netsuite", "USER_ERROR", "You cannot fulfill more than 5 units; the quantity remaining is 3.", V},
		{"businesscentral", "Application_DialogException", "Quantity exceeds the available inventory for item 1000 at location MAIN.", V},
		{"netsuite", "USER_ERROR", "This item is not available for the selected subsidiary.", V},
		{"netsuite", "USER_ERROR", "Currency EUR is not enabled for customer C-99.", V},
		{"salesforce", "FIELD_CUSTOM_VALIDATION_EXCEPTION", "Discount cannot exceed 40%", V},
		{"netsuite", "USER_ERROR", "The record has been closed and cannot be edited.", V},
		{"netsuite", "USER_ERROR", "Invalid tax code reference key 17.", F},
		{"shipstation", "", "The service code 'ups_ground' is not valid for carrier fedex", V},
		{"businesscentral", "", "Vendor 10000 is blocked for posting.", F},
		{"netsuite", "", "Item 1000 is not an inventory item.", F},
		{"hubspot", "", "Association from contact to pipeline is not allowed", V},
		{"salesforce", "CANNOT_EXECUTE_FLOW_TRIGGER", "The record couldn't be saved because it failed to trigger a flow.", V},
		{"netsuite", "", "You do not have permission to enter a transaction in this period", B},
		{"netsuite", "", "Maximum 10,000 lines exceeded on transaction", T},
	})
}

// TestGatewaysQuotasAndCredentials: proxies that had no target, client time-outs, quotas
// in each vendor's words, required headers and parameters, duplicates by key, and
// credentials refused or suspended, written for this test from the vendors' and
// proxies' references.
func TestGatewaysQuotasAndCredentials(t *testing.T) {
	C, I, R, M, D, B := ClassConnection, ClassIntermittent, ClassRateLimit, ClassMissing, ClassDuplicate, ClassPermission
	checkProbes(t, []probe{
		{"", "503", "no healthy upstream", C},
		{"", "504", "upstream request timeout", C},
		{"", "", "Endpoint request timed out", C},
		{"netsuite", "", "The request could not be processed because the server is busy. Please try again later.", I},
		{"salesforce", "503", "Server Unavailable: the server is down for maintenance", I},
		{"", "ECONNABORTED", "timeout of 30000ms exceeded", C},
		{"", "", "Timeout awaiting 'request' for 30000ms", C},
		{"businesscentral", "504", "Gateway Timeout: the request exceeded 10 minutes of execution time", C},
		{"businesscentral", "", "The operation has timed out.", C},
		{"hubspot", "429", "{\"status\":\"error\",\"message\":\"You have reached your daily limit.\",\"errorType\":\"RATE_LIMIT\",\"policyName\":\"DAILY\"}", R},
		{"shipstation", "429", "Too Many Requests. X-Rate-Limit-Remaining: 0, X-Rate-Limit-Reset: 38", R},
		{"netsuite", "", "Concurrent request limit exceeded. Request blocked.", R},
		{"salesforce", "", "Exceeded API request limit: 100000 requests in 24 hours", R},
		{"businesscentral", "", "Maximum number of concurrent requests exceeded. Try again later.", R},
		{"mailchimp", "", "You have more than 10 simultaneous connections.", R},
		{"", "", "The 'Content-Type' header is required.", M},
		{"", "", "Parameter 'customerId' is required but was not provided", M},
		{"hubspot", "409", "Conflict: contact with email x@example.com already exists", D},
		{"shipstation", "identifier_conflict", "An order with order_number 1001 already exists", D},
		{"netsuite", "", "A record with the same external ID already exists", D},
		{"salesforce", "", "INVALID_LOGIN: Invalid username, password, security token; or user locked out.", B},
		{"hubspot", "401", "Authentication credentials not found. This API supports OAuth 2.0 authentication", B},
		{"", "", "The OAuth token has been revoked", B},
		{"businesscentral", "Authorization_TenantNotAllowed", "The tenant does not allow this application.", B},
		{"mailchimp", "", "Your account has been suspended for compliance review.", B},
		{"shipstation", "", "401 Unauthorized: API key and secret do not match", B},
	})
}
