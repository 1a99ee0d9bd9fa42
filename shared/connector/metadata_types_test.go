package connector_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// Each vendor's own type names give the value types a fix is checked against; a type the
// six do not cover (an address, a sublist) is untyped.
func TestValueTypeReadsEachVendorsTypeNames(t *testing.T) {
	for _, tc := range []struct {
		sys    connector.System
		vendor string
		want   string
	}{
		{connector.SystemHostERP, "string", connector.ValueString},
		{connector.SystemHostERP, "integer", connector.ValueInteger},
		{connector.SystemHostERP, "number", connector.ValueDecimal},
		{connector.SystemHostERP, "boolean", connector.ValueBoolean},
		{connector.SystemHostERP, "object", ""},
		{connector.SystemERP2, "Edm.String", connector.ValueString},
		{connector.SystemERP2, "Edm.Int32", connector.ValueInteger},
		{connector.SystemERP2, "Edm.Decimal", connector.ValueDecimal},
		{connector.SystemERP2, "Edm.Date", connector.ValueDate},
		{connector.SystemERP2, "Edm.Guid", connector.ValueReference},
		{connector.SystemERP2, "Microsoft.NAV.contactType", ""},
		{connector.SystemCRM, "picklist", connector.ValueString},
		{connector.SystemCRM, "currency", connector.ValueDecimal},
		{connector.SystemCRM, "int", connector.ValueInteger},
		{connector.SystemCRM, "datetime", connector.ValueDate},
		{connector.SystemCRM, "reference", connector.ValueReference},
		{connector.SystemCRM, "address", ""},
		{connector.SystemMarketing, "zip", connector.ValueString},
		{connector.SystemMarketing, "date", connector.ValueString},
		{connector.SystemMarketing, "number", connector.ValueDecimal},
		{connector.SystemMarketing, "address", ""},
		{connector.SystemShipping, "number", connector.ValueDecimal},
		{connector.SystemShipping, "Address", ""},
	} {
		if got := connector.ValueType(tc.sys, tc.vendor); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.sys, tc.vendor, got, tc.want)
		}
	}
}
