package ai

var (
	sfCode, sfHint = decisive(srcSalesforceSOAP), hint(srcSalesforceSOAP)
	sfREST         = decisive(srcSalesforceREST)
	sfBulk         = decisive(srcSalesforceBulk)
)

// salesforceCatalogue: StatusCode values of the SOAP and REST APIs, and Bulk API errors.
var salesforceCatalogue = (&catalogue{
	vendor: "Salesforce",
	names:  []string{"salesforce", "sfdc", "force.com"},
	codes: []vendorCode{
		sfCode("REQUIRED_FIELD_MISSING", ClassMissing, "a required field has no value"),
		sfHint("FIELD_CUSTOM_VALIDATION_EXCEPTION", ClassValue, "a validation rule of the org refused the record"),
		sfHint("FIELD_INTEGRITY_EXCEPTION", ClassValue, "a field's value breaks the field's integrity"),
		sfCode("FIELD_FILTER_VALIDATION_EXCEPTION", ClassReference, "a lookup points at a record outside its filter"),
		sfCode("INVALID_CROSS_REFERENCE_KEY", ClassReference, "a reference names no record of the right type"),
		sfCode("INVALID_ID_FIELD", ClassReference, "an id field holds no valid id"),
		sfCode("MALFORMED_ID", ClassReference, "an id is malformed"),
		sfCode("ENTITY_IS_DELETED", ClassReference, "the record points at a deleted record"),
		sfCode("INACTIVE_OWNER_OR_USER", ClassReference, "the owner or user is inactive"),
		sfCode("DUPLICATE_VALUE", ClassDuplicate, "a unique field's value exists on another record"),
		sfCode("DUPLICATES_DETECTED", ClassDuplicate, "a duplicate rule found a matching record"),
		sfCode("DUPLICATE_EXTERNAL_ID", ClassDuplicate, "more than one record has the external id"),
		sfCode("DUPLICATE_USERNAME", ClassDuplicate, "the username exists"),
		sfCode("STRING_TOO_LONG", ClassValue, "a value is longer than the field allows"),
		sfCode("INVALID_EMAIL_ADDRESS", ClassValue, "an e-mail address is malformed"),
		sfCode("INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", ClassValue, "a value is not one of a restricted picklist's"),
		sfCode("NUMBER_OUTSIDE_VALID_RANGE", ClassValue, "a number is out of the field's range"),
		sfCode("INVALID_TYPE_ON_FIELD_IN_RECORD", ClassValue, "a value is of the wrong type for the field"),
		sfCode("INVALID_SESSION_ID", ClassPermission, "the session expired or is invalid"),
		sfCode("INSUFFICIENT_ACCESS_OR_READONLY", ClassPermission, "the user may not perform the operation"),
		sfCode("INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY", ClassPermission, "the user may not reach a referenced record"),
		sfCode("INVALID_FIELD_FOR_INSERT_UPDATE", ClassPermission, "field-level security keeps the field from being written"),
		sfCode("API_DISABLED_FOR_ORG", ClassPermission, "the org may not use the API"),
		sfCode("API_CURRENTLY_DISABLED", ClassPermission, "the user may not use the API"),
		sfREST("REQUEST_LIMIT_EXCEEDED", ClassRateLimit, "the org's API request limit or concurrent request limit is reached"),
		sfCode("EXCEEDED_ID_LIMIT", ClassTooLarge, "more ids or records than one call may carry"),
		sfCode("EXCEEDED_MAX_SIZE_REQUEST", ClassTooLarge, "the message sent to the API is larger than allowed (50 MB)"),
		sfCode("EXCEEDED_LEAD_CONVERT_LIMIT", ClassTooLarge, "more ids than one convertLead call may carry"),
		sfCode("EXCEEDED_MAX_TYPES_LIMIT", ClassTooLarge, "more object types than one describe call may carry"),
		sfCode("MAXIMUM_SIZE_OF_ATTACHMENT", ClassTooLarge, "an attachment is larger than allowed"),
		sfCode("MAXIMUM_SIZE_OF_DOCUMENT", ClassTooLarge, "a document is larger than allowed"),
		sfCode("EMAIL_BATCH_SIZE_LIMIT_EXCEEDED", ClassTooLarge, "more email records than the maximum batch size"),
		sfCode("OPERATION_TOO_LARGE", ClassTooLarge, "the query returned too many results; narrow it or split it"),
		sfCode("IMAGE_TOO_LARGE", ClassTooLarge, "the image exceeds the maximum width, height or file size"),
		sfCode("MISSING_ARGUMENT", ClassMissing, "a required argument was not specified"),
		sfCode("TOO_MANY_ENUM_VALUE", ClassValue, "too many values for one multi-select picklist field"),
		sfCode("CUSTOM_CLOB_FIELD_LIMIT_EXCEEDED", ClassValue, "a long text field's value is over its maximum size"),
		sfCode("INVALID_CURRENCY_ISO", ClassValue, "the currency ISO code is not valid"),
		sfHint("INVALID_FIELD", ClassValue, "a field name is not valid for the object"),
		sfCode("INVALID_CROSS_REFERENCE_TYPE_FOR_FIELD", ClassReference, "the referenced record is of a type the field does not take"),
		sfCode("TEXT_DATA_OUTSIDE_SUPPORTED_CHARSET", ClassParse, "the text uses a character set that is not supported"),
		sfCode("MALFORMED_SEARCH", ClassParse, "the search string could not be parsed"),
		sfCode("QUERY_TIMEOUT", ClassIntermittent, "the query timed out on the server"),
		sfCode("REQUEST_RUNNING_TOO_LONG", ClassIntermittent, "the request ran too long on the server and was cancelled"),
		sfHint("RECORD_IN_USE_BY_WORKFLOW", ClassIntermittent, "a workflow process is using the record"),
		sfCode("TOO_MANY_APEX_REQUESTS", ClassRateLimit, "too many Apex requests; resend after a short wait"),
		sfCode("MASS_MAIL_LIMIT_EXCEEDED", ClassRateLimit, "the org's daily mass e-mail limit is used up"),
		sfCode("INSUFFICIENT_ACCESS", ClassPermission, "the user lacks access for the operation"),
		sfCode("PASSWORD_LOCKOUT", ClassPermission, "the user is locked out after too many login attempts"),
		sfCode("LOGIN_MUST_USE_SECURITY_TOKEN", ClassPermission, "the login needs the security token"),
		sfCode("ORG_LOCKED", ClassPermission, "the org is locked"),
		sfCode("TRIAL_EXPIRED", ClassPermission, "the org's trial expired"),
		sfHint("LIMIT_EXCEEDED", ClassTooLarge, "a limit of the request was exceeded"),
		sfCode("STORAGE_LIMIT_EXCEEDED", ClassTooLarge, "the org's data storage is full"),
		sfREST("JSON_PARSER_ERROR", ClassParse, "the JSON body could not be parsed"),
		sfREST("MALFORMED_QUERY", ClassParse, "the query could not be parsed"),
		sfCode("UNABLE_TO_LOCK_ROW", ClassIntermittent, "another operation holds the record's lock"),
		sfCode("SERVER_UNAVAILABLE", ClassIntermittent, "the server is unavailable for now"),
		sfHint("UNKNOWN_EXCEPTION", ClassIntermittent, "an unexpected error on Salesforce's side"),
		sfREST("NOT_FOUND", ClassReference, "the requested resource does not exist"),
		sfCode("CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY", "", "a trigger or process refused the record; the message says why"),
		sfBulk("ExceededQuota", ClassRateLimit, "the org's Bulk API quota is used up"),
		sfBulk("InvalidBatch", "", "the batch was refused; the message says why (its size, its content or its format)"),
		sfBulk("TooManyLockFailure", ClassIntermittent, "too many records failed to lock"),
	},
	statuses: map[int]statusMeaning{
		// Salesforce answers both a missing permission and a used-up request limit with 403.
		403: {ClassPermission, 2, "forbidden: a permission, or the org's request limit", srcSalesforceREST},
	},
}).build()

var (
	hsCode = decisive(srcHubSpot)
	hsHint = hint(srcHubSpot)
)

// hubspotCatalogue: the category of HubSpot's error responses and the error codes of its
// property validation.
var hubspotCatalogue = (&catalogue{
	vendor: "HubSpot",
	names:  []string{"hubspot"},
	codes: []vendorCode{
		hsCode("RATE_LIMITS", ClassRateLimit, "a rate limit of the account or app is reached"),
		hsCode("OBJECT_NOT_FOUND", ClassReference, "the object does not exist"),
		hsCode("MISSING_SCOPES", ClassPermission, "the token lacks a required scope"),
		hsCode("INVALID_AUTHENTICATION", ClassPermission, "the credentials are invalid"),
		hsCode("EXPIRED_AUTHENTICATION", ClassPermission, "the access token expired"),
		hsCode("OBJECT_ALREADY_EXISTS", ClassDuplicate, "the object exists"),
		hsHint("CONFLICT", ClassDuplicate, "the object conflicts with an existing one"),
		hsCode("INVALID_EMAIL", ClassValue, "an e-mail address is not valid"),
		hsCode("INVALID_OPTION", ClassValue, "a value is not one of the property's options"),
		hsCode("INVALID_DATE", ClassValue, "a date is not valid"),
		hsCode("INVALID_INTEGER", ClassValue, "a number is not valid"),
		hsCode("PROPERTY_DOESNT_EXIST", ClassValue, "the property does not exist"),
		hsCode("VALIDATION_ERROR", "", "the request failed validation; the detail says why"),
	},
}).build()

var (
	mcCode    = decisive(srcMailchimp)
	mcMembers = decisive(srcMailchimpList)
)

// mailchimpCatalogue: the titles of the Marketing API's error glossary (its "type"
// documents them), as Mailchimp and its client libraries spell them; the list members
// endpoints' own 400 titles cite those endpoints.
var mailchimpCatalogue = (&catalogue{
	vendor: "Mailchimp",
	names:  []string{"mailchimp"},
	codes: []vendorCode{
		mcCode("APIKeyMissing", ClassPermission, "no API key was sent"),
		mcCode("APIKeyInvalid", ClassPermission, "the API key is invalid, or for another datacenter"),
		mcCode("Forbidden", ClassPermission, "the key may not access the resource"),
		mcCode("UserDisabled", ClassPermission, "the account is disabled"),
		mcCode("WrongDatacenter", ClassPermission, "the key belongs to another datacenter"),
		mcCode("ResourceNotFound", ClassReference, "the resource does not exist"),
		mcCode("TooManyRequests", ClassRateLimit, "more than the account's 10 simultaneous connections"),
		mcCode("InternalServerError", ClassIntermittent, "an unexpected error on Mailchimp's side"),
		mcMembers("Member Exists", ClassDuplicate, "the address is a list member already"),
		mcMembers("Forgotten Email Not Subscribed", ClassValue, "the address was permanently deleted and may not be re-added"),
		mcMembers("Member In Compliance State", ClassValue, "the address is in a compliance state and may not be subscribed"),
		mcCode("ComplianceRelated", ClassPermission, "the account is suspended for a compliance review"),
		mcCode("JSONParseError", ClassParse, "the request body is not valid JSON"),
		mcCode("RequestedFieldsInvalid", ClassValue, "the fields asked for are not valid"),
		mcCode("Invalid Resource", "", "the resource failed validation; the detail says why"),
		mcCode("BadRequest", "", "the request was refused; the detail says why"),
		mcCode("InvalidAction", "", "the action is not valid for the resource"),
		mcCode("MethodNotAllowed", "", "the method and the resource are not compatible"),
		mcCode("ResourceNestingTooDeep", ClassTooLarge, "the request nests sub-resources too deeply"),
		mcCode("InvalidMethodOverride", "", "the X-HTTP-Method-Override header names no method"),
	},
}).build()
