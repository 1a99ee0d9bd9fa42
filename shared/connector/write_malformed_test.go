package connector_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// A create the target answered 2xx went out, whatever its answer's body: a body the
// connector cannot read (a 201 of "{}" naming no id) or a 204 without its Location is a
// lost answer of a request that was sent (WriteSent), never a failure before it, which a
// governance release answered "nothing was written": approving again then POSTed a second
// record (third review of the eighteenth session, high).
func TestACreateAnsweredUnreadablyWasSent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sys    connector.System
		entity string
		fields map[string]any
	}{
		{connector.SystemHostERP, "customer", map[string]any{"companyname": "Nordwind"}},
		{connector.SystemERP2, "customers", map[string]any{"displayName": "Nordwind"}},
		{connector.SystemCRM, "Account", map[string]any{"Name": "Nordwind"}},
		{connector.SystemShipping, "orders", map[string]any{"orderNumber": "SO-1"}},
	} {
		t.Run(string(tc.sys), func(t *testing.T) {
			t.Parallel()
			var posts atomic.Int32
			unreadable := func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method != http.MethodPost || r.URL.Path == "/oauth2/token" || r.URL.Path == "/services/oauth2/token" {
						h.ServeHTTP(w, r)
						return
					}
					posts.Add(1)
					h.ServeHTTP(httptest.NewRecorder(), r) // the target makes the record
					if tc.sys == connector.SystemHostERP {
						w.WriteHeader(http.StatusNoContent) // NetSuite's answer, without its Location
						return
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusCreated)
					_, _ = w.Write([]byte("{}"))
				})
			}
			_, c := startFakeBehind(t, tc.sys, unreadable, nil)
			_, err := c.Write(context.Background(), connector.WriteRequest{Entity: tc.entity, Create: true,
				Fields: tc.fields, IdempotencyKey: "k-unreadable", Origin: "syncassist"})
			t.Logf("%d POSTs: %v", posts.Load(), err)
			if err == nil {
				t.Skip("this vendor's create reads the record some other way: nothing to judge")
			}
			if posts.Load() == 0 {
				t.Fatalf("the create was never sent: %v", err)
			}
			if !connector.WriteSent(err) || !connector.MayHaveApplied(err) {
				t.Fatalf("%v: WriteSent %v, MayHaveApplied %v; want a sent write whose outcome is unknown (true, true)",
					err, connector.WriteSent(err), connector.MayHaveApplied(err))
			}
		})
	}
}
