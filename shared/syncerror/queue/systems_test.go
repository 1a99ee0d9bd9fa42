package queue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// systemsFixture is a queue whose tenant names its own system "Lager Nord" (→ shipping),
// with rows sent under vendor names, system keys and a name resolving to nothing.
func systemsFixture(t *testing.T) (*roomtest.OpFixture, *decisions.Service) {
	t.Helper()
	f := roomtest.NewOpFixture(t)
	tenants := tenanttest.NewStore()
	if err := tenants.Create(context.Background(), tenant.Config{ID: "acme",
		SystemAliases: map[string]string{"Lager Nord": "shipping"}}); err != nil {
		t.Fatal(err)
	}
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Tenants: tenants, Now: func() time.Time { return clock }}}}}
	f.Mux.Handle("GET /m", op.ListHandler())
	f.Mux.Handle("GET /m/{id}", op.DetailHandler())
	for i, sys := range []string{"Business Central", "ShipStation", "erp2", "business central ", "Lager Nord", "webshop", "", "BC"} {
		r := syncerrortest.SampleRecord("acme", fmt.Sprintf("E-%d", i))
		r.ExternalSystem = sys
		if _, err := f.Claims.Claim(context.Background(), syncerror.NewClaim(r, syncerror.SourceWebhook, "", clock.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	return f, op
}

// The system filter lists the rows whose host's name resolves to the system asked for,
// whichever name it is asked by; a name resolving to none keeps the exact filter. Each row
// shows its resolved system beside the name as sent.
func TestListFiltersByResolvedSystem(t *testing.T) {
	f, _ := systemsFixture(t)
	for q, want := range map[string][]string{
		"limit=1&system=erp2": {"E-7", "E-3", "E-2", "E-0"},
		"limit=1&system=" + url.QueryEscape("Business Central"): {"E-7", "E-3", "E-2", "E-0"},
		"limit=1&system=ERP2&sort=oldest":                       {"E-0", "E-2", "E-3", "E-7"},
		"limit=1&system=shipping":                               {"E-4", "E-1"},
		"limit=1&system=" + url.QueryEscape("lager nord"):       {"E-4", "E-1"},
		"limit=1&system=webshop":                                {"E-5"},
		"limit=1&system=crm":                                    nil,
	} {
		if got := listAll(t, f, q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", q, got, want)
		}
	}
	w := f.Call(t, "acme", "GET", "/m?limit=100", "")
	var p listPage
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &p) != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	got := map[string]string{}
	for _, s := range p.Items {
		got[s.ExternalSystem] = s.System
	}
	want := map[string]string{"Business Central": "erp2", "ShipStation": "shipping", "erp2": "erp2", "business central ": "erp2",
		"Lager Nord": "shipping", "webshop": "webshop", "": "", "BC": "erp2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("systems = %v, want %v", got, want)
	}
	d := roomtest.DetailOf(t, f.Call(t, "acme", "GET", "/m/"+syncerror.ClaimID("acme", "E-0"), ""))
	if d.System != "erp2" || d.ExternalSystem != "Business Central" || d.Error.ExternalSystem != "Business Central" {
		t.Fatalf("detail: system %q, as sent %q / %q", d.System, d.ExternalSystem, d.Error.ExternalSystem)
	}
}

// The insights count by the resolved system.
func TestInsightsBySystem(t *testing.T) {
	_, op := systemsFixture(t)
	ins := &automation.InsightsReader{Claims: op.Claims, Tenants: op.Tenants, Now: op.Now}
	in, err := ins.Insights(context.Background(), "acme", "7d", clock.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for sys, c := range in.BySystem {
		got[sys] = c.Received
	}
	if want := map[string]int{"erp2": 4, "shipping": 2, "webshop": 1, "unspecified": 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("by system = %v, want %v", got, want)
	}
}
