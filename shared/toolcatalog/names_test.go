package toolcatalog

import (
	"slices"
	"strings"
	"testing"
)

func TestReadName(t *testing.T) {
	for _, tc := range []struct {
		name, tokens, concept, qualifiers string
	}{
		{"shipToPostalCode", "ship to postal code", "postal_code", "shipping"},
		{"billing_zip", "billing zip", "postal_code", "billing"},
		{"ZIPCode", "zip code", "postal_code", ""},
		{"post-code", "post code", "postal_code", ""},
		{"address_line_1", "address line 1", "street", ""},
		{"Address 2", "address 2", "street2", ""},
		{"E-Mail", "email", "email", ""},
		{"emailAddress", "email address", "email", ""},
		{"firstname", "first name", "first_name", ""},
		{"dob", "birth date", "birth_date", ""},
		{"Qty", "quantity", "quantity", ""},
		{"lineItems", "line item", "line_number", ""},
		{"addresses", "address", "street", ""},
		{"shipping_address.country_code", "shipping address country code", "country", "shipping"},
		{"trackingNumbers", "tracking number", "tracking", ""},
		{"carrier", "carrier", "carrier", ""},
		{"shippingMethod", "shipping method", "ship_method", ""},
		{"grandTotal", "grand total", "amount", ""},
		{"companyName", "company name", "company_name", ""},
		{"organisation", "organization", "company_name", ""},
		{"surname", "surname", "last_name", ""},
		{"itemNumber", "item number", "sku", ""},
		{"phone2", "phone 2", "phone", "secondary"},
		{"custom_field_7", "custom field 7", "", "7"},
	} {
		fn := readName(tc.name)
		quals := strings.Join(fn.qualifiers, " ")
		if strings.Join(fn.tokens, " ") != tc.tokens || fn.concept != tc.concept || quals != tc.qualifiers {
			t.Errorf("%s: tokens %q concept %q qualifiers %q; want %q %q %q", tc.name,
				strings.Join(fn.tokens, " "), fn.concept, quals, tc.tokens, tc.concept, tc.qualifiers)
		}
	}
}

// The synonym pairs the service promises in its documentation match each other.
func TestSynonymPairs(t *testing.T) {
	for _, group := range [][]string{
		{"zip", "postalCode", "postcode"},
		{"companyName", "accountName", "organization"},
		{"phone", "telephone"},
		{"email", "emailAddress", "mail"},
		{"street", "address1", "addressLine1"},
		{"state", "region", "province"},
		{"country", "countryCode"},
		{"amount", "total", "grandTotal"},
		{"sku", "itemNumber", "productCode"},
		{"qty", "quantity"},
		{"firstName", "givenName"},
		{"lastName", "surname", "familyName"},
		{"dob", "birthDate"},
		{"tracking", "trackingNumber"},
	} {
		for _, a := range group {
			for _, b := range group {
				sa, sb := analyze(FieldSpec{Name: a, Type: "string"}), analyze(FieldSpec{Name: b, Type: "string"})
				if s, why := nameSimilarity(sa, sb); s < 0.9 {
					t.Errorf("%s ~ %s scores %.2f (%s)", a, b, s, why)
				}
			}
		}
	}
	// Close but not the same: usable when nothing better exists, beaten by the real thing.
	for _, pair := range [][2]string{{"carrier", "shippingMethod"}, {"phone", "mobile"}} {
		s, _ := nameSimilarity(analyze(FieldSpec{Name: pair[0]}), analyze(FieldSpec{Name: pair[1]}))
		if s < 0.6 || s >= 0.9 {
			t.Errorf("%s ~ %s scores %.2f", pair[0], pair[1], s)
		}
	}
	// Qualifiers keep the billing and the shipping postal code apart.
	if s, _ := nameSimilarity(analyze(FieldSpec{Name: "billToZip"}), analyze(FieldSpec{Name: "shipToPostalCode"})); s > 0.3 {
		t.Errorf("billToZip ~ shipToPostalCode scores %.2f", s)
	}
}

func TestSampleFormats(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"jane@example.com", fmtEmail}, {"https://x.example.com/a", fmtURL}, {"2026-11-22", fmtDate},
		{"11/22/2026", fmtDate}, {"2026-11-22T10:00:00Z", fmtDateTime}, {"EUR", fmtCurrency},
		{"SE", fmtCountryCode}, {"TX", fmtRegionCode}, {"CA", fmtCode2}, {"DEU", fmtCountryCode},
		{"+1 415-555-0142", fmtPhone}, {"(415) 555-0110", fmtPhone}, {"04101", fmtPostal}, {"M1 1AE", fmtPostal},
		{"K1A 0B1", fmtPostal}, {"60611-2201", fmtPostal}, {"1Z999AA10123456784", fmtTracking},
		{"9400111899223197428490", fmtTracking}, {"036000291452", fmtDigits}, {"129.90", fmtNumericString},
		{float64(3), fmtInteger}, {1.5, fmtDecimal}, {true, fmtBool}, {"yes", fmtBool},
		{"WID-4411-BLK-XL", fmtCode}, {"Harbor Road 12", fmtText}, {"paid", fmtWord},
		{"0e8f4a52-59a2-4bd4-9c51-0d3c1b7f8a10", fmtUUID},
	} {
		if got := formatOf(tc.v); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.v, got, tc.want)
		}
	}
	if d := dominantFormat([]any{"a@example.com", "b@example.com", "n/a"}); d.format != fmtEmail || d.matched != 2 || d.seen != 3 {
		t.Errorf("dominant %+v", d)
	}
	if d := dominantFormat([]any{"a@example.com", "paid", float64(1)}); d.format != "" {
		t.Errorf("no format has 60%%: %+v", d)
	}
}

func TestAssignmentUsesEachSourceOnce(t *testing.T) {
	m := newMapper(mappingArgs{
		SourceFields: []FieldSpec{{Name: "zip", Type: "string"}},
		TargetFields: []FieldSpec{{Name: "postalCode", Type: "string"}, {Name: "postcode", Type: "string"}, {Name: "zipCode", Type: "string"}},
	})
	out := m.result(0)
	if len(out.Suggestions) != 1 || !slices.Equal(out.UnmappedTargets, []string{"postcode", "zipCode"}) {
		t.Errorf("suggestions %+v unmapped %v", out.Suggestions, out.UnmappedTargets)
	}
}
