package connector

import "strings"

// The value types a fix or mapping may give a field, read from the vendor's own type
// names (Field.Type). A field whose vendor type is none of these (an address, a sublist,
// a complex type) is untyped: its value is written as given.
const (
	ValueString    = "string"
	ValueInteger   = "integer"
	ValueDecimal   = "decimal"
	ValueBoolean   = "boolean"
	ValueDate      = "date"
	ValueReference = "reference"
)

// ValueType is the value type of a field of sys whose vendor type is vendorType; "" when
// it is none of the six. It only reads: the names are the ones each vendor's metadata
// (metadata_vendors.go) answers with.
//
//   - NetSuite: the record's JSON schema types (string, integer, number, boolean, object);
//     a reference is an object {"id": …} there, like a sublist, so objects stay untyped.
//     https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_1545142173.html
//     (the metadata schema is shared between reads and updates).
//   - Business Central: OData CSDL primitive types (Edm.String, Edm.Int32, Edm.Decimal,
//     Edm.Boolean, Edm.Date, Edm.DateTimeOffset, Edm.Guid — its ids are GUIDs).
//   - Salesforce: the describe's field types, Schema.DisplayType
//     (https://developer.salesforce.com/docs/platform/apex-ref/references/apex-ref/apex-enum-schema-displaytype.html):
//     string, textarea, picklist, email, phone, url, … are strings; int and long integers;
//     double, currency and percent decimals; date and datetime dates; reference and id
//     references.
//   - Mailchimp: member properties (string, boolean) and merge field types (text, number,
//     phone, url, dropdown, radio, zip, birthday, date, address). A merge field's date is
//     written in the audience's own date_format (MM/DD/YYYY by default), so it is typed a
//     string, not an ISO date.
//   - ShipStation: the published models' string, number and boolean (its dates are
//     strings in its own format).
func ValueType(sys System, vendorType string) string {
	return valueTypes[sys][strings.ToLower(vendorType)]
}

var valueTypes = map[System]map[string]string{
	SystemHostERP: {"string": ValueString, "integer": ValueInteger, "number": ValueDecimal, "boolean": ValueBoolean},
	SystemERP2: {"edm.string": ValueString, "edm.int16": ValueInteger, "edm.int32": ValueInteger,
		"edm.int64": ValueInteger, "edm.byte": ValueInteger, "edm.decimal": ValueDecimal, "edm.double": ValueDecimal,
		"edm.single": ValueDecimal, "edm.boolean": ValueBoolean, "edm.date": ValueDate, "edm.datetimeoffset": ValueDate,
		"edm.guid": ValueReference},
	SystemCRM: {"string": ValueString, "textarea": ValueString, "picklist": ValueString,
		"multipicklist": ValueString, "combobox": ValueString, "email": ValueString, "phone": ValueString,
		"url": ValueString, "encryptedstring": ValueString, "int": ValueInteger, "long": ValueInteger,
		"double": ValueDecimal, "currency": ValueDecimal, "percent": ValueDecimal, "boolean": ValueBoolean,
		"date": ValueDate, "datetime": ValueDate, "reference": ValueReference, "id": ValueReference},
	SystemMarketing: {"string": ValueString, "text": ValueString, "phone": ValueString,
		"url": ValueString, "imageurl": ValueString, "dropdown": ValueString, "radio": ValueString, "zip": ValueString,
		"birthday": ValueString, "date": ValueString, "number": ValueDecimal, "boolean": ValueBoolean},
	SystemShipping: {"string": ValueString, "number": ValueDecimal, "boolean": ValueBoolean},
}
