package ai

// decisive and hint build catalogue entries citing src.
func decisive(src source) func(code string, c ErrorClass, meaning string) vendorCode {
	return func(code string, c ErrorClass, meaning string) vendorCode {
		return vendorCode{code: code, class: c, weight: codeDecisive, meaning: meaning, src: src}
	}
}

func hint(src source) func(code string, c ErrorClass, meaning string) vendorCode {
	return func(code string, c ErrorClass, meaning string) vendorCode {
		return vendorCode{code: code, class: c, weight: codeHint, meaning: meaning, src: src}
	}
}

var (
	nsCode, nsHint = decisive(srcNetSuiteCodes), hint(srcNetSuiteCodes)
	nsFault        = decisive(srcNetSuiteFaults)
	nsREST         = decisive(srcNetSuiteREST)
	nsConcur       = decisive(srcNetSuiteConcur)
)

// netsuiteCatalogue: SOAP status detail codes, SOAP faults, REST o:errorCode values and the
// SuiteScript errors a RESTlet answers with.
var netsuiteCatalogue = (&catalogue{
	vendor: "NetSuite",
	names:  []string{"netsuite", "suitetalk", "suitescript"},
	codes: []vendorCode{
		nsCode("ABORT_SEARCH_EXCEEDED_MAX_TIME", ClassIntermittent, "a search ran out of the server's time"),
		nsCode("ACCESS_DENIED", ClassPermission, "access to the configuration is denied"),
		nsCode("ACCT_DISABLED", ClassPermission, "the account is disabled"),
		// REST web services' answer past the account's concurrency limit: Oracle's
		// concurrency page says requests over the limit are rejected; the code and its 429
		// are what clients report (an assumption, see VENDOR-APIS.md).
		nsConcur("CONCURRENCY_LIMIT_EXCEEDED", ClassRateLimit, "the account's concurrent request limit is reached"),
		nsCode("MAX_RCRDS_EXCEEDED", ClassTooLarge, "more records than one list request (addList, updateList, upsertList) may carry"),
		nsCode("MAX_200_LINES_ALLWD_ON_TRANS", ClassTooLarge, "more lines than a transaction may have"),
		nsCode("MAX_16_LINES_ALLWD_PER_BILLPAY", ClassTooLarge, "more lines than one bill payment may have"),
		nsCode("MAX_BULK_MERGE_RCRDS_EXCEEDED", ClassTooLarge, "more records than one bulk merge may carry"),
		nsCode("MAX_EMAILS_EXCEEDED", ClassTooLarge, "more e-mails than one request may send"),
		nsCode("MAX_VALUES_EXCEEDED", ClassValue, "more values than one multi-select field may hold"),
		nsFault("SESSION_TIMED_OUT", ClassPermission, "the session timed out; log in again"),
		nsFault("LOGIN_DISABLED", ClassPermission, "the login is disabled"),
		nsFault("ROLE_REQUIRED", ClassPermission, "the login needs a role"),
		nsFault("OI_PERMISSION_REQD", ClassPermission, "the role lacks a required permission"),
		nsFault("INVALID_WS_VERSION", ClassParse, "the request uses a web services version the endpoint does not read"),
		nsFault("JOB_NOT_COMPLETE", ClassIntermittent, "the asynchronous job has not finished yet"),
		nsCode("EXCEEDED_MAX_FIELD_LENGTH", ClassValue, "a field's value is longer than allowed"),
		nsCode("INSUFFICIENT_PERMISSION", ClassPermission, "the role lacks a permission"),
		nsCode("INVALID_ACCOUNT", ClassPermission, "the login names an account it may not use"),
		nsCode("INVALID_CREDENTIALS", ClassPermission, "the credentials are not valid"),
		nsCode("INVALID_LOGIN", ClassPermission, "the login failed"),
		nsCode("INVALID_LOGIN_ATTEMPT", ClassPermission, "the login failed"),
		nsCode("INVALID_LOGIN_CREDENTIALS", ClassPermission, "the login's credentials are not valid"),
		nsCode("INVALID_ROLE", ClassPermission, "the role may not log in this way"),
		nsCode("INVALID_SESSION", ClassPermission, "the session expired or was closed"),
		nsCode("INVALID_KEY_OR_REF", ClassReference, "a key or reference names no record that may be used here"),
		nsCode("INVALID_REF_KEY", ClassReference, "a reference key names no record"),
		nsCode("RCRD_DSNT_EXIST", ClassReference, "the record does not exist"),
		nsCode("RCRD_HAS_BEEN_CHANGED", ClassIntermittent, "the record changed since it was read; reload and submit again"),
		nsCode("RCRD_LOCKED_BY_WF", ClassIntermittent, "a workflow holds the record locked"),
		nsCode("UNEXPECTED_ERROR", ClassIntermittent, "an unexpected error on NetSuite's side"),
		nsCode("WS_CONCUR_SESSION_DISALLWD", ClassRateLimit, "concurrent sessions exceeded the account's limit"),
		nsConcur("WS_REQUEST_BLOCKED", ClassRateLimit, "the request was blocked by concurrency governance"),
		nsConcur("SSS_REQUEST_LIMIT_EXCEEDED", ClassRateLimit, "a RESTlet request exceeded concurrency governance"),
		decisive(srcNetSuiteRESTlet)("SSS_USAGE_LIMIT_EXCEEDED", ClassRateLimit, "a script used up its governance units"),
		decisive(srcNetSuiteSS)("SSS_FILE_CONTENT_SIZE_EXCEEDED", ClassTooLarge, "a file's content is larger than a script may handle"),
		decisive(srcNetSuiteRESTlet)("SSS_REQUEST_TIME_EXCEEDED", ClassIntermittent, "the script ran out of its execution time on the server"),
		decisive(srcNetSuiteRESTlet)("SSS_TIME_LIMIT_EXCEEDED", ClassIntermittent, "the script ran out of its execution time on the server"),
		nsFault("ExceededConcurrentRequestLimitFault", ClassRateLimit, "more concurrent requests than the account's limit"),
		nsFault("ExceededRequestLimitFault", ClassRateLimit, "more requests than the account's limit"),
		nsFault("ExceededUsageLimitFault", ClassRateLimit, "the account's usage limit is reached"),
		nsFault("ExceededRecordCountFault", ClassTooLarge, "more records than one request may carry"),
		nsFault("ExceededRequestSizeFault", ClassTooLarge, "the request is larger than allowed"),
		nsFault("InsufficientPermissionFault", ClassPermission, "the role lacks a permission for the action"),
		nsFault("InvalidAccountFault", ClassPermission, "the login names an invalid account"),
		nsFault("InvalidCredentialsFault", ClassPermission, "the credentials are not valid"),
		nsFault("InvalidSessionFault", ClassPermission, "the session timed out or was ended; log in again"),
		nsFault("InvalidVersionFault", ClassParse, "the request uses a schema version the endpoint does not read"),
		nsREST("NONEXISTENT_ID", ClassReference, "the id names no record"),
		nsREST("INVALID_ID", ClassReference, "the id is not a valid record id"),
		nsREST("INVALID_CONTENT", "", "the request's content was refused; the detail says why"),
		nsHint("INVALID_FLD_VALUE", ClassValue, "a field's value is not valid"),
		nsCode("USER_ERROR", "", "a validation of the record failed; the message says which"),
	},
	prefixes: []vendorCode{
		nsCode("DUP_", ClassDuplicate, "a record with the same key exists"),
	},
	statuses: map[int]statusMeaning{
		// RESTlets answer every unhandled error, governance included, with 400.
		400: {"", 0, "a RESTlet's user or governance error", srcNetSuiteRESTlet},
	},
}).build()

var (
	bcCode = decisive(srcBCCodes)
	bcHint = hint(srcBCCodes)
)

// businessCentralCatalogue: the OData error codes of Business Central's API and web
// services, as Microsoft lists them (srcBCCodes) and no others; the code's prefix is a
// family (BadRequest_, Authentication_, Authorization_, Internal_, Application_).
// Authentication_InvalidCredentials, the list's code for refused credentials, is the
// Authentication_ family's.
var businessCentralCatalogue = (&catalogue{
	vendor: "Business Central",
	names:  []string{"businesscentral", "business central", "dynamics", "navision", "d365bc"},
	codes: []vendorCode{
		bcCode("Internal_EntityWithSameKeyExists", ClassDuplicate, "a record with the same key exists"),
		bcCode("Internal_RecordNotFound", ClassReference, "the record does not exist"),
		bcCode("BadRequest_ResourceNotFound", ClassReference, "the resource does not exist"),
		bcHint("BadRequest_NotFound", ClassReference, "the request names something that does not exist"),
		bcCode("Request_EntityChanged", ClassIntermittent, "another user changed the record since it was read (ETag)"),
		bcCode("BadRequest_InvalidToken", ClassParse, "the request body or URL has a token the reader cannot read"),
		bcCode("Application_InvalidGUID", ClassReference, "a GUID, the id Business Central gives every record, is malformed"),
		bcCode("Internal_InvalidTableRelation", ClassReference, "a field's value cannot be found in the table it relates to"),
		bcHint("Internal_DataNotFoundFilter", ClassReference, "no record lies within the filter"),
		bcCode("BadRequest_RequiredParamNotProvided", ClassMissing, "a field must not be blank or empty"),
		bcCode("Application_EvaluateException", ClassValue, "a value cannot be evaluated into the field's type"),
		bcCode("Application_FieldValidationException", "", "a field test of the application failed; the message says which"),
		bcCode("Application_StringExceededLength", ClassValue, "a value is longer than the field allows"),
		bcHint("Internal_ServerError", ClassIntermittent, "the server failed"),
		bcCode("Internal_CompanyNotFound", ClassReference, "the company the request names cannot be found"),
		bcHint("Internal_TenantUnavailable", ClassIntermittent, "the tenant is not accessible right now"),
		bcCode("Application_FilterErrorException", ClassValue, "a filter's value is not valid for the field"),
		bcCode("BadRequest_InvalidOperation", "", "the operation is not allowed on the field or record; the message says why"),
		bcCode("Application_DialogException", "", "the application's validation refused the record; the message says why"),
		bcCode("BadRequest", "", "the request was refused; the message says why"),
	},
	prefixes: []vendorCode{
		bcCode("Authentication_", ClassPermission, "authenticating to the service failed"),
		bcCode("Authorization_", ClassPermission, "the authenticated identity lacks a permission"),
	},
}).build()
