package flow_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
)

func ep(s connector.System, entity string) flow.Endpoint {
	return flow.Endpoint{System: s, Entity: entity}
}

var (
	partner = ep(connector.SystemHostERP, "partner")
	vendor  = ep(connector.SystemHostERP, "vendor")
	lead    = ep(connector.SystemCRM, "Lead")
	list    = ep(connector.SystemMarketing, "L1")
)

func fl(id string, src, dst flow.Endpoint, mapping map[string]string) flow.Flow {
	return flow.Flow{ID: id, Enabled: true, Source: src, Target: dst, Mapping: mapping}
}

func TestFindCyclesNamesAThreeSystemCycleWithASwappedField(t *testing.T) {
	flows := []flow.Flow{
		fl("erp-to-crm", partner, lead, map[string]string{"Phone": "phone", "Email": "email", "Fax": "fax"}),
		fl("crm-to-marketing", lead, list, map[string]string{"PHONE": "Phone", "EMAIL": "Email"}),
	}
	saved := fl("marketing-to-erp", list, partner, map[string]string{"email": "PHONE", "phone": "EMAIL"})
	cycles := flow.FindCycles(saved, flows)
	if len(cycles) != 1 {
		t.Fatalf("cycles %+v, want one", cycles)
	}
	c := cycles[0]
	if !reflect.DeepEqual(c.Flows, []string{"marketing-to-erp", "erp-to-crm", "crm-to-marketing"}) ||
		!reflect.DeepEqual(c.Endpoints, []string{"marketing/L1", "hosterp/partner", "crm/Lead", "marketing/L1"}) {
		t.Fatalf("cycle %+v", c)
	}
	want := "marketing/L1 → hosterp/partner → crm/Lead → marketing/L1 (flows marketing-to-erp, erp-to-crm, crm-to-marketing) " +
		"over PHONE → email → Email → EMAIL; EMAIL → phone → Phone → PHONE"
	if c.Summary != want || len(c.Fields) != 2 || len(c.Fields[0]) != 4 {
		t.Fatalf("summary %q\nwant    %q\nfields %+v", c.Summary, want, c.Fields)
	}
	m := governance.Manifest{Entries: []governance.Entry{
		{Entity: "lead", Field: "phone", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
		{Entity: "partner", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
	}}
	flow.NameOwners(cycles, m)
	got := map[string]string{}
	for _, ch := range cycles[0].Fields {
		for _, f := range ch {
			got[string(f.System)+"/"+f.Entity+"."+f.Field] = string(f.Owner) + " " + string(f.Policy)
		}
	}
	if got["crm/Lead.Phone"] != "crm source_wins" || got["hosterp/partner.phone"] != "hosterp reject_with_alert" || got["marketing/L1.EMAIL"] != " " {
		t.Fatalf("owners %v", got)
	}
}

func TestFindCycles(t *testing.T) {
	mirror := fl("back", lead, partner, map[string]string{"phone": "Phone"})
	cases := []struct {
		name   string
		saved  flow.Flow
		others []flow.Flow
		want   []string // summaries
	}{
		{"a direct mirror", fl("out", partner, lead, map[string]string{"Phone": "phone"}), []flow.Flow{mirror},
			[]string{"hosterp/partner → crm/Lead → hosterp/partner (flows out, back) over phone → Phone → phone"}},
		{"two flows inside one system", fl("p2v", partner, vendor, map[string]string{"phone": "phone"}),
			[]flow.Flow{fl("v2p", vendor, partner, map[string]string{"phone": "phone"})},
			[]string{"hosterp/partner → hosterp/vendor → hosterp/partner (flows p2v, v2p) over phone → phone → phone"}},
		{"other fields back are a two-way sync of different fields, no cycle",
			fl("out", partner, lead, map[string]string{"CreditLimit": "creditlimit"}), []flow.Flow{mirror}, nil},
		{"a disabled flow closes nothing", fl("out", partner, lead, map[string]string{"Phone": "phone"}),
			[]flow.Flow{{ID: "back", Source: lead, Target: partner, Mapping: map[string]string{"phone": "Phone"}}}, nil},
		{"the saved flow is named although disabled",
			flow.Flow{ID: "out", Source: partner, Target: lead, Mapping: map[string]string{"Phone": "phone"}}, []flow.Flow{mirror},
			[]string{"hosterp/partner → crm/Lead → hosterp/partner (flows out, back) over phone → Phone → phone"}},
		{"the stored version of the saved flow is not counted", fl("back", lead, partner, map[string]string{"fax": "Fax"}),
			[]flow.Flow{mirror, fl("out", partner, lead, map[string]string{"Phone": "phone"})}, nil},
		{"a cycle elsewhere is not the saved flow's", fl("in", list, partner, map[string]string{"phone": "PHONE"}),
			[]flow.Flow{mirror, fl("out", partner, lead, map[string]string{"Phone": "phone"})}, nil},
		{"entities compare without case", fl("out", partner, lead, map[string]string{"Phone": "phone"}),
			[]flow.Flow{fl("back", ep(connector.SystemCRM, "lead"), ep(connector.SystemHostERP, "Partner"), map[string]string{"phone": "Phone"})},
			[]string{"hosterp/partner → crm/Lead → hosterp/Partner (flows out, back) over phone → Phone → phone"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, cy := range flow.FindCycles(c.saved, c.others) {
				got = append(got, cy.Summary)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// Many parallel flows between two endpoints: the search is bounded and still names
// cycles.
func TestFindCyclesIsBounded(t *testing.T) {
	var others []flow.Flow
	for i := range 99 {
		id := "f" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if i%2 == 0 {
			others = append(others, fl(id, lead, list, map[string]string{"PHONE": "Phone"}))
		} else {
			others = append(others, fl(id, list, partner, map[string]string{"phone": "PHONE"}))
		}
	}
	got := flow.FindCycles(fl("out", partner, lead, map[string]string{"Phone": "phone"}), others)
	if len(got) == 0 || len(got) > 10 {
		t.Fatalf("%d cycles, want between 1 and 10", len(got))
	}
}
