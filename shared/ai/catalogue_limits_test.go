package ai

import (
	"strings"
	"testing"
)

// TestLimitAndRuntimeEntries: one case per catalogue entry and wording rule added for
// issue 27's second pass (too_large from the vendors' published limits, socket errors of
// Node's fetch, Business Central's OData codes and reader), each message written from the
// cited page (not from a corpus): the page is among the evidence for the class, and the
// rationale cites the page of the evidence that decided.
func TestLimitAndRuntimeEntries(t *testing.T) {
	for _, c := range []struct {
		system, code, msg string
		want              ErrorClass
		cites             string // part of the source's address the rationale must name
	}{
		// NetSuite SOAP status codes and SuiteScript errors.
		{"netsuite", "MAX_RCRDS_EXCEEDED", "updateList carries more records than one request may.", ClassTooLarge, "section_N3539978"},
		{"netsuite", "SSS_FILE_CONTENT_SIZE_EXCEEDED", "The file is too big to load.", ClassTooLarge, "section_159469488562"},
		{"netsuite", "", "You have exceeded the maximum allowed number of records in a list operation.", ClassTooLarge, "section_N3539420"},
		{"netsuite", "MAX_200_LINES_ALLWD_ON_TRANS", "The transaction has 250 item lines.", ClassTooLarge, "section_N3539978"},
		{"netsuite", "MAX_16_LINES_ALLWD_PER_BILLPAY", "The bill payment applies to 20 bills.", ClassTooLarge, "section_N3539978"},
		{"netsuite", "MAX_BULK_MERGE_RCRDS_EXCEEDED", "Bulk merge carries too many records.", ClassTooLarge, "section_N3539978"},
		{"netsuite", "MAX_EMAILS_EXCEEDED", "Too many e-mails for one send.", ClassTooLarge, "section_N3539978"},
		{"netsuite", "MAX_VALUES_EXCEEDED", "custentity_tags holds too many values.", ClassValue, "section_N3539978"},
		{"netsuite", "SESSION_TIMED_OUT", "Your session has timed out.", ClassPermission, "section_N3539420"},
		{"netsuite", "LOGIN_DISABLED", "Web services login is disabled for this user.", ClassPermission, "section_N3539420"},
		{"netsuite", "ROLE_REQUIRED", "A role must be given for this login.", ClassPermission, "section_N3539420"},
		{"netsuite", "OI_PERMISSION_REQD", "The role cannot use this operation.", ClassPermission, "section_N3539420"},
		{"netsuite", "INVALID_WS_VERSION", "The endpoint does not support version 2015_1.", ClassParse, "section_N3539420"},
		{"netsuite", "JOB_NOT_COMPLETE", "The job is still running.", ClassIntermittent, "section_N3539420"},
		// Salesforce StatusCode values and Bulk API errors.
		{"salesforce", "EXCEEDED_MAX_SIZE_REQUEST", "The size of the message sent to the API exceeded 50 MB.", ClassTooLarge, "sforce_api_calls_concepts_core_data_objects"},
		{"salesforce", "EXCEEDED_LEAD_CONVERT_LIMIT", "Too many ids were sent to convertLead.", ClassTooLarge, "sforce_api_calls_concepts_core_data_objects"},
		{"salesforce", "EXCEEDED_MAX_TYPES_LIMIT", "Too many object types to describe.", ClassTooLarge, "sforce_api_calls_concepts_core_data_objects"},
		{"salesforce", "MAXIMUM_SIZE_OF_ATTACHMENT", "Attachment body is over 25 MB.", ClassTooLarge, "sforce_api_calls_concepts_core_data_objects"},
		{"salesforce", "MAXIMUM_SIZE_OF_DOCUMENT", "Document body is over 5 MB.", ClassTooLarge, "sforce_api_calls_concepts_core_data_objects"},
		{"salesforce", "InvalidBatch", "InvalidBatch : Failed to parse CSV header", ClassParse, "asynch_api_reference_errors"},
		{"salesforce", "EMAIL_BATCH_SIZE_LIMIT_EXCEEDED", "Too many e-mail records for one call.", ClassTooLarge, "core_data_objects"},
		{"salesforce", "OPERATION_TOO_LARGE", "exceeded 100000 distinct ids", ClassTooLarge, "core_data_objects"},
		{"salesforce", "IMAGE_TOO_LARGE", "The image is over the allowed dimensions.", ClassTooLarge, "core_data_objects"},
		{"salesforce", "MISSING_ARGUMENT", "The call lacks the sObjects argument.", ClassMissing, "core_data_objects"},
		{"salesforce", "TOO_MANY_ENUM_VALUE", "Interests__c: at most 100 values may be selected.", ClassValue, "core_data_objects"},
		{"salesforce", "CUSTOM_CLOB_FIELD_LIMIT_EXCEEDED", "Notes__c is over 131072 characters.", ClassValue, "core_data_objects"},
		{"salesforce", "INVALID_CURRENCY_ISO", "Currency ISO code XEU is not valid.", ClassValue, "core_data_objects"},
		{"salesforce", "INVALID_FIELD", "No such column 'Tier__c' on entity 'Account'.", ClassValue, "core_data_objects"},
		{"salesforce", "INVALID_CROSS_REFERENCE_TYPE_FOR_FIELD", "The referenced record is of the wrong type for ParentId.", ClassReference, "core_data_objects"},
		{"salesforce", "TEXT_DATA_OUTSIDE_SUPPORTED_CHARSET", "The text contains characters outside the supported character set.", ClassParse, "core_data_objects"},
		{"salesforce", "MALFORMED_SEARCH", "unexpected token: 'OR'", ClassParse, "core_data_objects"},
		{"salesforce", "QUERY_TIMEOUT", "Your query request was running for too long.", ClassIntermittent, "core_data_objects"},
		{"salesforce", "REQUEST_RUNNING_TOO_LONG", "The request ran too long and was cancelled.", ClassIntermittent, "core_data_objects"},
		{"salesforce", "RECORD_IN_USE_BY_WORKFLOW", "The record is in use by a workflow process.", ClassIntermittent, "core_data_objects"},
		{"salesforce", "TOO_MANY_APEX_REQUESTS", "Too many Apex requests.", ClassRateLimit, "core_data_objects"},
		{"salesforce", "MASS_MAIL_LIMIT_EXCEEDED", "The daily mass e-mail limit is reached.", ClassRateLimit, "core_data_objects"},
		{"salesforce", "INSUFFICIENT_ACCESS", "The user may not perform this operation.", ClassPermission, "core_data_objects"},
		{"salesforce", "PASSWORD_LOCKOUT", "Too many login attempts.", ClassPermission, "core_data_objects"},
		{"salesforce", "LOGIN_MUST_USE_SECURITY_TOKEN", "Append the security token to the password.", ClassPermission, "core_data_objects"},
		{"salesforce", "ORG_LOCKED", "The organization is locked.", ClassPermission, "core_data_objects"},
		{"salesforce", "TRIAL_EXPIRED", "The trial period is over.", ClassPermission, "core_data_objects"},
		{"mailchimp", "JSON Parse Error", "We encountered an unspecified JSON parsing error.", ClassParse, "mailchimp.com"},
		// ShipStation's error_code values.
		{"shipstation", "duplicated_name", "A package type named Box already exists.", ClassDuplicate, "errors-codes"},
		{"shipstation", "not_found", "Shipment se-404 was not found.", ClassReference, "errors-codes"},
		{"shipstation", "timeout", "The carrier took too long to respond.", ClassConnection, "errors-codes"},
		{"shipstation", "invalid_file_size", "The uploaded file is 30 MB.", ClassTooLarge, "errors-codes"},
		{"shipstation", "invalid_file_type", "Files of type .heic are not accepted.", ClassParse, "errors-codes"},
		{"shipstation", "invalid_currency", "Currency ABC is not supported.", ClassValue, "errors-codes"},
		{"shipstation", "invalid_service", "usps_first_class is not a service of the carrier.", ClassValue, "errors-codes"},
		{"shipstation", "identifiers_must_match", "The label's shipment_id differs from the request's.", ClassValue, "errors-codes"},
		{"shipstation", "batch_cannot_be_modified", "Batch se-77 is processing.", ClassValue, "errors-codes"},
		// Business Central's OData error codes and its reader.
		{"businesscentral", "Application_InvalidGUID", "Invalid format of GUID string.", ClassReference, "dynamics-error-codes"},
		{"businesscentral", "Internal_InvalidTableRelation", "The field Customer No. of table Sales Header contains a value (C-99) that cannot be found in the related table (Customer).", ClassReference, "dynamics-error-codes"},
		{"businesscentral", "BadRequest_RequiredParamNotProvided", "Field 'number' must not be blank or empty.", ClassMissing, "dynamics-error-codes"},
		{"businesscentral", "Application_EvaluateException", "The value \"Weekly\" cannot be evaluated into type Option.", ClassValue, "dynamics-error-codes"},
		{"businesscentral", "BadRequest", "An unexpected 'StartObject' node was found when reading from the JSON reader. A 'PrimitiveValue' node was expected.", ClassParse, "dynamics-error-codes"},
		{"businesscentral", "", "The request is not valid: customerId is not a valid GUID.", ClassReference, "dynamics-error-codes"},
		// HubSpot's batch input limits.
		{"hubspot", "VALIDATION_ERROR", "The maximum number of inputs supported in a batch read is 100; reduce the number of inputs.", ClassTooLarge, "section_N3539420"},
		{"hubspot", "VALIDATION_ERROR", "Please reduce the number of ids in this request.", ClassTooLarge, "hubspot-associations-api"},
		// JSON Schema's maxItems, RFC 6585's 431, Mailchimp's batch limit.
		{"mailchimp", "Invalid Resource", "members: array has more than 500 items", ClassTooLarge, "json-schema-validation"},
		{"", "400", "data/lines must NOT have more than 200 items", ClassTooLarge, "json-schema-validation"},
		{"shipstation", "431", "Request Header Fields Too Large", ClassTooLarge, "rfc6585#section-5"},
		{"shipstation", "400", "400 Bad Request: Request Header Or Cookie Too Large", ClassTooLarge, "rfc6585#section-5"},
		{"mailchimp", "", "The batch is too large; send at most 500 members per call.", ClassTooLarge, "batch-subscribe"},
		// Node's fetch (undici) and the Fetch standard.
		{"hubspot", "UND_ERR_SOCKET", "other side closed", ClassConnection, "undici"},
		{"hubspot", "UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error", ClassConnection, "undici"},
		{"hubspot", "UND_ERR_HEADERS_TIMEOUT", "Headers Timeout Error", ClassConnection, "undici"},
		{"hubspot", "UND_ERR_BODY_TIMEOUT", "Body Timeout Error", ClassConnection, "undici"},
		{"hubspot", "UND_ERR_CLOSED", "The client is closed", ClassConnection, "undici"},
		{"salesforce", "TypeError", "fetch failed", ClassConnection, "fetch.spec.whatwg.org"},
		// A currency the subsidiary does not allow, reported with NetSuite's reference code.
		{"netsuite", "INVALID_KEY_OR_REF", "Invalid currency reference key 2 for subsidiary 5.", ClassValue, "section_N3539978"},
	} {
		a := analyze(DiagnosisRequest{ExternalSystem: c.system, ErrorCode: c.code, Message: c.msg})
		r := a.diagnosis().Rationale
		if a.cls.class != c.want {
			t.Errorf("%s %q: class %s, want %s (%s)", c.code, c.msg, a.cls.class, c.want, r)
			continue
		}
		cited := false
		for _, e := range append(append([]evidence{*a.cls.decidedBy}, a.cls.support...), a.cls.generic...) {
			cited = cited || strings.Contains(e.src.url, c.cites)
		}
		if !cited {
			t.Errorf("%s %q: no evidence from %q: %+v", c.code, c.msg, c.cites, a.cls)
		}
		if u := a.cls.decidedBy.src.url; u != "" && !strings.Contains(r, u) {
			t.Errorf("%s %q: rationale does not cite %s: %s", c.code, c.msg, u, r)
		}
	}
}

// TestOneFieldTooLongIsValue: a single field's value over its length is value, not
// too_large, however the limit is worded (the class definitions draw that line).
func TestOneFieldTooLongIsValue(t *testing.T) {
	for _, m := range []string{
		"The length of the string is 57, but it must be less than or equal to 50 characters.",
		"memo: ensure this value has at most 40 characters",
		"Name: data value too large (max length 80)",
		"STRING_TOO_LONG: Account Name: data value too large: 300 characters",
	} {
		if c := classify(scope{}, "", m); c.class != ClassValue {
			t.Errorf("%q: %s", m, c.class)
		}
	}
}
