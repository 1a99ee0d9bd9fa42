package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

func TestListSyncErrorsPaging(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemHostERP, nil)
	base := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	// Added out of order, two sharing a timestamp: the listing orders by occurredAt, then id.
	for _, e := range []struct {
		id     string
		offset time.Duration
	}{{"e5", 50 * time.Minute}, {"e1", 0}, {"e3b", 30 * time.Minute}, {"e3a", 30 * time.Minute}, {"e2", 10 * time.Minute}, {"e6", 60 * time.Minute}} {
		raw := fmt.Sprintf(`{"tenantId":"demo","errorId":%q,"recordType":"invoice","recordId":"INV-1","errorCode":"E","message":"m","occurredAt":%q}`,
			e.id, base.Add(e.offset).Format(time.RFC3339))
		if err := fake.AddSyncError(json.RawMessage(raw)); err != nil {
			t.Fatal(err)
		}
	}
	collect := func(since time.Time, limit int) (ids []string, pages int) {
		t.Helper()
		cursor := ""
		for {
			page, err := c.ListSyncErrors(context.Background(), since, cursor, limit)
			if err != nil {
				t.Fatalf("ListSyncErrors: %v", err)
			}
			pages++
			for _, it := range page.Items {
				var r struct {
					ErrorID string `json:"errorId"`
				}
				if err := json.Unmarshal(it, &r); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, r.ErrorID)
			}
			if page.NextCursor == "" {
				return ids, pages
			}
			if pages > 10 {
				t.Fatal("paging does not end")
			}
			cursor = page.NextCursor
		}
	}
	cases := []struct {
		name      string
		since     time.Time
		limit     int
		want      []string
		wantPages int
	}{
		{"everything in one page", time.Time{}, 0, []string{"e1", "e2", "e3a", "e3b", "e5", "e6"}, 1},
		{"pages of two", time.Time{}, 2, []string{"e1", "e2", "e3a", "e3b", "e5", "e6"}, 3},
		{"since is inclusive", base.Add(30 * time.Minute), 1, []string{"e3a", "e3b", "e5", "e6"}, 4},
		{"since between records", base.Add(31 * time.Minute), 5, []string{"e5", "e6"}, 1},
		{"since after all", base.Add(2 * time.Hour), 2, nil, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ids, pages := collect(tc.since, tc.limit)
			if !reflect.DeepEqual(ids, tc.want) || pages != tc.wantPages {
				t.Fatalf("ids = %v in %d pages, want %v in %d", ids, pages, tc.want, tc.wantPages)
			}
		})
	}

	t.Run("record added while paging is not skipped", func(t *testing.T) {
		page, err := c.ListSyncErrors(context.Background(), time.Time{}, "", 2)
		if err != nil {
			t.Fatal(err)
		}
		raw := fmt.Sprintf(`{"errorId":"e7","occurredAt":%q}`, base.Add(70*time.Minute).Format(time.RFC3339))
		if err := fake.AddSyncError(json.RawMessage(raw)); err != nil {
			t.Fatal(err)
		}
		// The cursor keeps the first page's size: NetSuite wants offsets in multiples of it.
		next, err := c.ListSyncErrors(context.Background(), time.Time{}, page.NextCursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(next.Items) != 2 || next.NextCursor == "" {
			t.Fatalf("second page = %s, next %q", next.Items, next.NextCursor)
		}
		third, err := c.ListSyncErrors(context.Background(), time.Time{}, next.NextCursor, 10)
		if err != nil || third.NextCursor == "" {
			t.Fatalf("third page: %v, next %q", err, third.NextCursor)
		}
		last, err := c.ListSyncErrors(context.Background(), time.Time{}, third.NextCursor, 10)
		if err != nil || len(last.Items) != 1 || !bytes.Contains(last.Items[0], []byte(`"e7"`)) || last.NextCursor != "" {
			t.Fatalf("last page = %s, %v", last.Items, err)
		}
	})

	t.Run("foreign cursor", func(t *testing.T) {
		_, err := c.ListSyncErrors(context.Background(), time.Time{}, "not-a-cursor", 2)
		if ce := asError(t, err, connector.ErrValidation); ce.Attempts != 0 || ce.Op != connector.OpListSyncErrors {
			t.Fatalf("error = %#v", ce)
		}
	})
}

// The poll reads a sync-error record as the host ERP's script posts it: an empty error id
// is ns-sync-error-<internal id>, text is trimmed, direction lower-cased, and what the
// ingest would reject (an unknown direction, a payload that is not an object) goes to
// context as text rather than losing the error.
func TestListSyncErrorsReadsRecordsAsTheScriptPostsThem(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemHostERP, nil)
	internal, err := fake.AddSyncErrorRecord(json.RawMessage(`{"errorId":"  ","recordType":" salesOrder ","recordId":"SO-1 ",
		"errorCode":"E1","message":" kept as is ","occurredAt":"2026-11-22T10:00:00+01:00","direction":"Inbound","payload":{"total":129.50}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fake.AddSyncErrorRecord(json.RawMessage(`{"errorId":"E-2","recordType":"invoice","recordId":"INV-1","errorCode":"E2",
		"message":"m","occurredAt":"2026-11-22T09:30:00Z","direction":"sideways","payload":"not json"}`)); err != nil {
		t.Fatal(err)
	}
	page, err := c.ListSyncErrors(context.Background(), time.Time{}, "", 10)
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("page %s, %v", page.Items, err)
	}
	var first, second map[string]any
	if json.Unmarshal(page.Items[0], &first) != nil || json.Unmarshal(page.Items[1], &second) != nil {
		t.Fatalf("items %s", page.Items)
	}
	want := map[string]any{"errorId": connector.FallbackErrorIDPrefix + internal, "recordType": "salesOrder", "recordId": "SO-1",
		"errorCode": "E1", "message": " kept as is ", "occurredAt": "2026-11-22T09:00:00.000Z", "direction": "inbound",
		"payload": map[string]any{"total": 129.50},
		"context": map[string]any{"source": "netsuite", "hostRecord": map[string]any{"type": "customrecord_sea_sync_error", "id": internal}}}
	delete(first, "tenantId")
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("record without an error id:\n got %v\nwant %v", first, want)
	}
	ctx, _ := second["context"].(map[string]any)
	if second["errorId"] != "E-2" || second["direction"] != nil || second["payload"] != nil ||
		ctx["directionText"] != "sideways" || ctx["payloadText"] != "not json" {
		t.Fatalf("record with text the ingest would reject: %v", second)
	}
	// The same record polled again keeps its errorId, so the claim path drops it as a duplicate.
	again, err := c.ListSyncErrors(context.Background(), time.Time{}, "", 10)
	if err != nil || !bytes.Equal(again.Items[0], page.Items[0]) {
		t.Fatalf("second poll %s, %v", again.Items, err)
	}
}

func TestListSyncErrorsUnsupported(t *testing.T) {
	t.Parallel()
	for _, sys := range connector.Systems[1:] {
		fake, c := startFake(t, sys, nil)
		_, err := c.ListSyncErrors(context.Background(), time.Time{}, "", 10)
		if ce := asError(t, err, connector.ErrUnsupported); ce.Retryable || ce.System != sys {
			t.Fatalf("%s: error = %#v", sys, ce)
		}
		if fake.Requests() != 0 {
			t.Fatalf("%s: an unsupported call reached the system", sys)
		}
	}
}
