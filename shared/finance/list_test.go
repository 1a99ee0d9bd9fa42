package finance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
)

type listPage struct {
	Items      []finance.View `json:"items"`
	NextCursor *string        `json:"nextCursor"`
}

func TestListNewestFirstPagedAndDetail(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	var want []string
	for i := range 5 {
		a := f.mustCreate(fmt.Sprintf("FA-%d", i), fmt.Sprintf("VB-%d", i))
		want = append([]string{a.ID}, want...)
		f.clock.Advance(time.Minute)
	}
	if _, err := f.mem.Create(context.Background(), financetest.SampleApproval("globex", "FA-9", t0)); err != nil {
		t.Fatal(err)
	}
	held := f.mustCreate("FA-held", "VB-h")
	if _, err := f.mem.BeginAccept(context.Background(), tenantID, held.ID, finance.NewLease(t0, time.Minute), t0); err != nil {
		t.Fatal(err)
	}

	var got []string
	path := base + "?limit=2"
	for pages := 0; ; pages++ {
		w := f.call(operatorOnly, http.MethodGet, path, "")
		if w.Code != http.StatusOK {
			t.Fatalf("list: %d %s", w.Code, w.Body)
		}
		var p listPage
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		for _, v := range p.Items {
			got = append(got, v.ID)
		}
		if p.NextCursor == nil || pages > 5 {
			break
		}
		path = base + "?limit=2&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("pending pages %v, want %v", got, want)
	}

	w := f.call(operatorOnly, http.MethodGet, base+"?status=applying", "")
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), "token") || !strings.Contains(w.Body.String(), `"leaseExpiresAt":"`) {
		t.Fatalf("applying listing: %d %s", w.Code, w.Body)
	}

	w = f.call(operatorOnly, http.MethodGet, base+"/FA-3", "")
	var v finance.View
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &v) != nil || v.ID != "FA-3" || *v.ERPID != "VB-3" ||
		v.LeaseExpiresAt != nil || v.DecidedBy != nil || string(v.Fields) != `{"approvalStatus":"approved","paymentHold":false}` {
		t.Fatalf("detail: %d %s", w.Code, w.Body)
	}

	for _, tc := range []struct {
		name, path string
		status     int
		code       string
	}{
		{"unknown status", base + "?status=approved", 400, "invalid_query"},
		{"limit too large", base + "?limit=101", 400, "invalid_query"},
		{"limit not a number", base + "?limit=ten", 400, "invalid_query"},
		{"bad cursor", base + "?cursor=%25%25", 400, "invalid_cursor"},
		{"unknown id", base + "/FA-404", 404, "not_found"},
		{"malformed id", base + "/FA%20x", 400, "invalid_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantProblem(t, f.call(operatorOnly, http.MethodGet, tc.path, ""), tc.status, tc.code)
		})
	}
	t.Run("another tenant sees none of it", func(t *testing.T) {
		wantProblem(t, f.call(otherTenant, http.MethodGet, base+"/FA-3", ""), 404, "not_found")
		w := f.call(otherTenant, http.MethodGet, base, "")
		var p listPage
		_ = json.Unmarshal(w.Body.Bytes(), &p)
		if w.Code != http.StatusOK || len(p.Items) != 1 || p.Items[0].ID != "FA-9" {
			t.Fatalf("other tenant's listing: %s", w.Body)
		}
	})
	t.Run("anonymous", func(t *testing.T) {
		wantProblem(t, f.call(nil, http.MethodGet, base, ""), 401, "unauthenticated")
	})
}

func TestViewOfARowWithoutERPID(t *testing.T) {
	a := financetest.SampleApproval(tenantID, "FA-1", t0)
	a.ERPID, a.Fields = "", nil
	b, err := json.Marshal(finance.ViewOf(a))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"erpId":null`, `"lastError":null`, `"decidedAt":null`, `"leaseExpiresAt":null`,
		`"fields":{"approvalStatus":"approved"}`, `"amount":"12480.00"`} {
		if !strings.Contains(s, want) {
			t.Errorf("view lacks %s: %s", want, s)
		}
	}
}
