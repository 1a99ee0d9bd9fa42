package ai

import "testing"

// The NetSuite catalogue holds NetSuite's own codes only: EXCEEDED_MAX_RECORDS is not one
// (too many records in one list request is MAX_RCRDS_EXCEEDED, in NetSuite's status detail
// codes, https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_N3539978.html).
func TestNetSuiteCatalogueHasNoInventedCodes(t *testing.T) {
	for _, code := range []string{"EXCEEDED_MAX_RECORDS"} {
		if v, ok := netsuiteCatalogue.lookup(code); ok {
			t.Errorf("%s is in the NetSuite catalogue (%q), but NetSuite has no such code", code, v.meaning)
		}
	}
	if v, ok := netsuiteCatalogue.lookup("MAX_RCRDS_EXCEEDED"); !ok || v.class != ClassTooLarge {
		t.Errorf("MAX_RCRDS_EXCEEDED = %+v, %v; want the too-large class", v, ok)
	}
}
