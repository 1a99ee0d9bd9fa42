package ai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

// vendorMarks are what citing a vendor's catalogue puts in a rationale: its name or its
// documentation's host.
var vendorMarks = map[string][]string{
	"NetSuite":         {"NetSuite", "docs.oracle.com"},
	"Salesforce":       {"Salesforce", "developer.salesforce.com"},
	"Business Central": {"Business Central", "learn.microsoft.com"},
	"Mailchimp":        {"Mailchimp", "mailchimp.com"},
	"ShipStation":      {"ShipStation", "shipstation.com"},
	"HubSpot":          {"HubSpot", "hubspot.com"},
}

func diagnoseWithRules(t *testing.T, req ai.DiagnosisRequest) ai.Diagnosis {
	t.Helper()
	d, err := aitest.NewHarness(nil).Governed.Diagnose(context.Background(), operatorID(), "inf-scope", "claim-scope", req)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// webshopError is the README's example: a webshop order recorded in the host ERP, whose
// code INVALID_FIELD_VALUE is in ShipStation's catalogue (and named alike by others).
func webshopError() ai.DiagnosisRequest {
	return ai.DiagnosisRequest{
		RecordType: "salesOrder", RecordID: "SO-10042", ErrorCode: "INVALID_FIELD_VALUE",
		Message:     "Invalid value for field shipcountry: 'Deutschland' is not a valid ISO 3166 country code",
		Integration: "webshop-orders", ExternalSystem: "webshop", HostSystem: "NetSuite", Direction: "inbound",
		Payload: json.RawMessage(`{"shipcountry":"Deutschland","shipzip":"10115","total":129.5}`),
	}
}

func assertCitesNone(t *testing.T, rationale string, vendors ...string) {
	t.Helper()
	for _, v := range vendors {
		for _, m := range vendorMarks[v] {
			if strings.Contains(rationale, m) {
				t.Errorf("rationale cites %s (%q): %s", v, m, rationale)
			}
		}
	}
}

func assertContains(t *testing.T, rationale string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(rationale, w) {
			t.Errorf("rationale lacks %q: %s", w, rationale)
		}
	}
}

// TestSharedCodeCitesOnlyTheErrorsSystems: a code the error's own systems do not list is
// still read for its class, but no other vendor's meaning or page is cited for it.
func TestSharedCodeCitesOnlyTheErrorsSystems(t *testing.T) {
	inbound := webshopError()
	noHost := webshopError()
	noHost.HostSystem, noHost.Direction = "", ""
	sfOnNetSuite := ai.DiagnosisRequest{RecordType: "salesOrder", RecordID: "SO-7", ErrorCode: "REQUIRED_FIELD_MISSING",
		Message: "Required fields are missing: [shipcountry]", ExternalSystem: "netsuite", Payload: json.RawMessage(`{"total":1}`)}
	for _, c := range []struct {
		name    string
		req     ai.DiagnosisRequest
		class   ai.ErrorClass
		foreign []string
		want    []string
	}{
		{"webshop order in NetSuite", inbound, ai.ClassValue, []string{"ShipStation", "Salesforce"},
			[]string{"NetSuite refused a value", "INVALID_FIELD_VALUE", "another system uses for an invalid value (not among NetSuite's documented codes)", "Set shipcountry to \"DE\""}},
		{"webshop with no host named", noHost, ai.ClassValue, []string{"ShipStation", "Salesforce", "NetSuite"},
			[]string{"Webshop refused a value", "INVALID_FIELD_VALUE", "for an invalid value (webshop's own codes are not known here)"}},
		{"a Salesforce code on a NetSuite error", sfOnNetSuite, ai.ClassMissing, []string{"Salesforce"},
			[]string{"NetSuite needs a value", "REQUIRED_FIELD_MISSING", "another system uses for a missing value (not among NetSuite's documented codes)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := diagnoseWithRules(t, c.req)
			if d.Class != c.class {
				t.Fatalf("class %s, want %s: %s", d.Class, c.class, d.Rationale)
			}
			assertCitesNone(t, d.Rationale+" "+d.Summary, c.foreign...)
			assertContains(t, d.Rationale, c.want...)
		})
	}
}

// TestOwnSystemsCodeIsCited: a code in the catalogue of the error's own system (named by
// externalSystem, by the product the worker says it is, or the host ERP for an inbound
// error) is explained by that vendor's page, and that vendor is the one named.
func TestOwnSystemsCodeIsCited(t *testing.T) {
	shipstation := webshopError()
	shipstation.ExternalSystem, shipstation.HostSystem, shipstation.Direction = "shipstation", "NetSuite", "outbound"
	flowToShipping := webshopError()
	flowToShipping.ExternalSystem, flowToShipping.ExternalVendor, flowToShipping.HostSystem = "shipping", "ShipStation", ""
	flowToShipping.Direction = "outbound"
	netsuite := webshopError()
	netsuite.ErrorCode = "INVALID_FLD_VALUE"
	for _, c := range []struct {
		name   string
		req    ai.DiagnosisRequest
		vendor string
		want   []string
	}{
		{"ShipStation's own error", shipstation, "ShipStation", []string{"ShipStation refused a value", "ShipStation API, error codes", "docs.shipstation.com"}},
		{"a flow's write to the shipping system", flowToShipping, "ShipStation", []string{"ShipStation refused a value", "docs.shipstation.com"}},
		{"NetSuite's code on a webshop order", netsuite, "NetSuite", []string{"NetSuite refused a value", "INVALID_FLD_VALUE, which means", "docs.oracle.com"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := diagnoseWithRules(t, c.req)
			if d.Class != ai.ClassValue {
				t.Fatalf("class %s: %s", d.Class, d.Rationale)
			}
			assertContains(t, d.Rationale, c.want...)
			var others []string
			for v := range vendorMarks {
				if v != c.vendor {
					others = append(others, v)
				}
			}
			assertCitesNone(t, d.Rationale, others...)
		})
	}
}

// TestUnknownSystemGetsGenericWording: an error from a system no catalogue covers, or
// naming no system at all, is explained by the class, with no vendor named or linked,
// and still says what decided it and what to do.
func TestUnknownSystemGetsGenericWording(t *testing.T) {
	zendesk := webshopError()
	zendesk.ExternalSystem, zendesk.Integration, zendesk.HostSystem, zendesk.Direction = "zendesk", "", "", ""
	nothing := zendesk
	nothing.ExternalSystem = ""
	for _, c := range []struct {
		name string
		req  ai.DiagnosisRequest
		want []string
	}{
		{"unmapped system", zendesk, []string{"Zendesk refused a value", "(zendesk's own codes are not known here)"}},
		{"no system named", nothing, []string{"The target system refused a value", "another system uses for an invalid value."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := diagnoseWithRules(t, c.req)
			if d.Class != ai.ClassValue || len(d.Fix) != 1 || d.Fix[0].After != "DE" {
				t.Fatalf("class %s fix %+v: %s", d.Class, d.Fix, d.Rationale)
			}
			var all []string
			for v := range vendorMarks {
				all = append(all, v)
			}
			assertCitesNone(t, d.Rationale+" "+d.Summary, all...)
			assertContains(t, d.Rationale, append(c.want, "Decided by the error code INVALID_FIELD_VALUE, which", "for an invalid value",
				"What to do: Set shipcountry to \"DE\"")...)
			if strings.Contains(d.Rationale, "https://") {
				t.Errorf("rationale links a page: %s", d.Rationale)
			}
		})
	}
}

// TestDuplicateLinksInTheRefusingSystem: the existing record's id goes to the id field of
// the system that refused the record: NetSuite's internalId for a webshop order the host
// ERP refused, the plain id where the webshop refused it.
func TestDuplicateLinksInTheRefusingSystem(t *testing.T) {
	dup := webshopError()
	dup.ErrorCode, dup.Message = "DUP_RCRD", "A record already exists with this external id (internal id 4711)."
	dup.Payload = json.RawMessage(`{"externalId":"WS-1001","total":129.5}`)
	outbound := dup
	outbound.Direction, outbound.ErrorCode = "outbound", "DUPLICATE"
	for _, c := range []struct {
		name string
		req  ai.DiagnosisRequest
		path string
	}{{"refused by NetSuite", dup, "internalId"}, {"refused by the webshop", outbound, "id"}} {
		t.Run(c.name, func(t *testing.T) {
			d := diagnoseWithRules(t, c.req)
			if d.Class != ai.ClassDuplicate || len(d.Fix) != 1 || d.Fix[0].Path != c.path || d.Fix[0].After != "4711" {
				t.Errorf("class %s fix %+v, want %s = 4711: %s", d.Class, d.Fix, c.path, d.Rationale)
			}
		})
	}
}

// TestTraceKeepsTheOtherVendorsSource: the engineer's trace still says whose catalogue a
// shared code was found in, marked as another vendor's.
func TestTraceKeepsTheOtherVendorsSource(t *testing.T) {
	h := aitest.NewHarness(nil)
	if _, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-trace", "claim-trace", webshopError()); err != nil {
		t.Fatal(err)
	}
	traces := h.Traces.Traces()
	if len(traces) != 1 || len(traces[0].Steps) != 2 {
		t.Fatalf("traces %+v", traces)
	}
	var step struct {
		Reasoning struct {
			DecidedBy []struct {
				Rule, Source string
				OtherVendors int
			} `json:"decidedBy"`
		} `json:"reasoning"`
	}
	if err := json.Unmarshal(traces[0].Steps[1].Response, &step); err != nil {
		t.Fatal(err)
	}
	d := step.Reasoning.DecidedBy
	if len(d) != 1 || d[0].Rule != "code INVALID_FIELD_VALUE" || d[0].OtherVendors < 1 || !strings.Contains(d[0].Source, "shipstation.com") {
		t.Errorf("decidedBy %+v", d)
	}
}
