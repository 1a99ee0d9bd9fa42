package queue_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

type listPage struct {
	Items      []queue.Summary
	NextCursor *string
}

// listAll follows a listing's cursors and returns the error ids in order.
func listAll(t *testing.T, f *roomtest.OpFixture, query string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 50 {
		q := query
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		w := f.Call(t, "acme", "GET", "/m?"+q, "")
		var p listPage
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &p) != nil {
			t.Fatalf("%s: %d %s", q, w.Code, w.Body)
		}
		for _, s := range p.Items {
			ids = append(ids, s.ErrorID)
		}
		if p.NextCursor == nil {
			return ids
		}
		cursor = *p.NextCursor
	}
	t.Fatal("listing did not end")
	return nil
}

// seedSorted claims rows whose class and confidence differ from their age order.
func seedSorted(t *testing.T, f *roomtest.OpFixture) {
	ctx := context.Background()
	for i, p := range []struct {
		class string
		conf  float64
	}{{"value", 0.5}, {"missing", 0.9}, {"value", 0.7}, {"duplicate", 0.6}} {
		at := clock.Add(time.Duration(i) * time.Minute)
		r := syncerrortest.SampleRecord("acme", fmt.Sprintf("E-%d", i))
		r.RecordID, r.Message = fmt.Sprintf("SO-%d", i), fmt.Sprintf("=HYPERLINK(\"x\") row %d", i)
		c := syncerror.NewClaim(r, syncerror.SourceWebhook, "", at)
		if _, err := f.Claims.Claim(ctx, c); err != nil {
			t.Fatal(err)
		}
		got, _ := f.Claims.BeginDiagnosis(ctx, "acme", c.ID, at, at)
		prop := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 1), at)
		prop.Class, prop.Confidence = p.class, p.conf
		if err := f.Claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, prop, at); err != nil {
			t.Fatal(err)
		}
	}
	syncerrortest.Claimed(t, f.Claims, "acme", "E-undiagnosed", clock.Add(time.Hour))
}

func TestListSortsSearchesAndFilters(t *testing.T) {
	f := roomtest.MaskedFixture(t)
	seedSorted(t, f)
	c, _ := f.Claims.Get(context.Background(), "acme", syncerror.ClaimID("acme", "E-2"))
	f.Call(t, "acme", "POST", "/p/"+c.ID+"/triage", `{"assign":{"to":"alice","from":""}}`)
	f.Call(t, "acme", "POST", "/p/"+c.ID+"/triage", `{"tag":{"add":"vip"}}`)
	for q, want := range map[string][]string{
		"limit=2":                             {"E-undiagnosed", "E-3", "E-2", "E-1", "E-0"},
		"limit=2&sort=oldest":                 {"E-0", "E-1", "E-2", "E-3", "E-undiagnosed"},
		"limit=2&sort=class":                  {"E-3", "E-1", "E-2", "E-0", "E-undiagnosed"},
		"limit=2&sort=confidence":             {"E-1", "E-2", "E-3", "E-0", "E-undiagnosed"},
		"limit=2&q=so-3":                      {"E-3"},
		"limit=2&q=e-1":                       {"E-1"},
		"limit=2&assignee=me":                 {"E-2"},
		"limit=2&assignee=none&sort=oldest":   {"E-0", "E-1", "E-3", "E-undiagnosed"},
		"limit=2&tag=vip":                     {"E-2"},
		"limit=2&class=value&sort=confidence": {"E-2", "E-0"},
	} {
		if got := listAll(t, f, q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", q, got, want)
		}
	}
	for _, q := range []string{"sort=size", "assignee=a%20b", "tag=A", "q=" + strings.Repeat("x", 201), "q=%00", "q=%FF", "sort=class&cursor=12"} {
		if w := f.Call(t, "acme", "GET", "/m?"+q, ""); w.Code != 400 {
			t.Errorf("%s: %d", q, w.Code)
		}
	}
}

func TestListSortWindowSaysWhenPartial(t *testing.T) {
	f := roomtest.MaskedFixture(t)
	for i := range queue.SortWindow + 1 {
		syncerrortest.Claimed(t, f.Claims, "acme", fmt.Sprintf("W-%d", i), clock.Add(time.Duration(i)*time.Second))
	}
	w := f.Call(t, "acme", "GET", "/m?sort=class&limit=100", "")
	if w.Code != 200 || w.Header().Get(queue.SortWindowHeader) != fmt.Sprint(queue.SortWindow) {
		t.Fatalf("%d window=%q", w.Code, w.Header().Get(queue.SortWindowHeader))
	}
	if w := f.Call(t, "acme", "GET", "/m?sort=newest", ""); w.Header().Get(queue.SortWindowHeader) != "" {
		t.Fatal("an index order is never partial")
	}
}

// The export holds every row of the filter across chunks, one header line, and no cell a
// spreadsheet would run as a formula.
func TestExportCSV(t *testing.T) {
	f := roomtest.MaskedFixture(t)
	seedSorted(t, f)
	for i := range queue.ExportChunkRows {
		syncerrortest.Claimed(t, f.Claims, "acme", fmt.Sprintf("X-%d", i), clock.Add(-time.Duration(i+1)*time.Second))
	}
	var all bytes.Buffer
	chunks, cursor := 0, ""
	for ; chunks < 5; chunks++ {
		q := "/m?format=csv&sort=oldest"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		w := f.Call(t, "acme", "GET", q, "")
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/csv") || w.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("%d %v", w.Code, w.Header())
		}
		all.Write(w.Body.Bytes())
		if cursor = w.Header().Get(queue.ExportCursorHeader); cursor == "" {
			break
		}
	}
	rows, err := csv.NewReader(&all).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if chunks != 1 || len(rows) != 1+queue.ExportChunkRows+5 || !reflect.DeepEqual(rows[0], queue.ExportColumns) {
		t.Fatalf("%d chunks, %d lines, header %v", chunks+1, len(rows), rows[0])
	}
	last := rows[len(rows)-1]
	if last[1] != "E-undiagnosed" || rows[1][1] != fmt.Sprintf("X-%d", queue.ExportChunkRows-1) {
		t.Fatalf("order: first %v last %v", rows[1], last)
	}
	for _, r := range rows[1:] {
		for _, cell := range r {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Fatalf("formula cell %q in %v", cell, r)
			}
		}
	}
	if msg := rows[len(rows)-2][8]; !strings.HasPrefix(msg, "'=HYPERLINK") {
		t.Fatalf("message cell %q", msg)
	}
}

// seedSystems claims rows of three external systems (and one without), E-0 oldest.
func seedSystems(t *testing.T, f *roomtest.OpFixture) {
	t.Helper()
	for i, sys := range []string{"webshop", "shipstation", "", "webshop", "Webshop", "webshop"} {
		r := syncerrortest.SampleRecord("acme", fmt.Sprintf("E-%d", i))
		r.ExternalSystem = sys
		c := syncerror.NewClaim(r, syncerror.SourceWebhook, "", clock.Add(time.Duration(i)*time.Minute))
		if _, err := f.Claims.Claim(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
}

// system= keeps one integration's rows, named as the host named it in any case (issue 35
// §2: "Webshop" and "webshop" are one system), with every other filter and sort, in the
// listing, the CSV export and the grouped view.
func TestListFiltersBySystem(t *testing.T) {
	f := roomtest.MaskedFixture(t)
	seedSystems(t, f)
	c, _ := f.Claims.Get(context.Background(), "acme", syncerror.ClaimID("acme", "E-3"))
	f.Call(t, "acme", "POST", "/p/"+c.ID+"/triage", `{"assign":{"to":"alice","from":""}}`)
	for q, want := range map[string][]string{
		"limit=1&system=webshop":                     {"E-5", "E-4", "E-3", "E-0"},
		"limit=1&system=webshop&sort=oldest":         {"E-0", "E-3", "E-4", "E-5"},
		"limit=1&system=webshop&sort=class":          {"E-5", "E-4", "E-3", "E-0"},
		"limit=1&system=webshop&assignee=me":         {"E-3"},
		"limit=1&system=webshop&assignee=none":       {"E-5", "E-4", "E-0"},
		"limit=1&system=webshop&q=e-0":               {"E-0"},
		"limit=1&system=WEBSHOP":                     {"E-5", "E-4", "E-3", "E-0"},
		"limit=1&system=shipstation":                 {"E-1"},
		"limit=1&system=web":                         nil,
		"limit=1&system=webshop&class=value":         nil, // undiagnosed rows have no class
		"limit=1&system=":                            {"E-5", "E-4", "E-3", "E-2", "E-1", "E-0"},
		"limit=1&system=webshop&since=" + sinceParam: {"E-5", "E-4", "E-3"},
	} {
		if got := listAll(t, f, q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", q, got, want)
		}
	}
	w := f.Call(t, "acme", "GET", "/m?format=csv&system=shipstation", "")
	rows, err := csv.NewReader(w.Body).ReadAll()
	if w.Code != 200 || err != nil || len(rows) != 2 || rows[1][1] != "E-1" || rows[1][9] != "shipstation" {
		t.Fatalf("export of shipstation: %d %v %v", w.Code, rows, err)
	}
}

var sinceParam = url.QueryEscape(clock.Add(2 * time.Minute).Format(time.RFC3339))

// A system no row could carry is a 400 naming the field, as the other filters are.
func TestListRefusesAMalformedSystem(t *testing.T) {
	f := roomtest.MaskedFixture(t)
	for _, v := range []string{strings.Repeat("x", queue.MaxSystemLen+1), "web%0Ashop", "%FF", "web%00"} {
		w := f.Call(t, "acme", "GET", "/m?system="+v, "")
		var p struct {
			Code   string
			Errors []struct{ Field string }
		}
		if w.Code != 400 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") ||
			json.Unmarshal(w.Body.Bytes(), &p) != nil || p.Code != "invalid_query" || len(p.Errors) != 1 || p.Errors[0].Field != "system" {
			t.Errorf("system=%.20s: %d %s", v, w.Code, w.Body)
		}
	}
	if w := f.Call(t, "acme", "GET", "/m?system="+strings.Repeat("ü", queue.MaxSystemLen), ""); w.Code != 200 {
		t.Errorf("128 characters (256 bytes): %d %s", w.Code, w.Body)
	}
}
