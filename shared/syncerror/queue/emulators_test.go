package queue_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo/dynamotest"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

// The processed table also holds each tenant's poll watermark; its key is no claim id,
// so the operator's routes never show it (they answered it 200 before ids were checked).
func TestOperatorDoesNotServeTheWatermarkRow(t *testing.T) {
	emutest.Each(t, testOperatorDoesNotServeTheWatermarkRow)
}

func testOperatorDoesNotServeTheWatermarkRow(t *testing.T, e emutest.Emulator) {
	claims := dynamotest.Claims(t, e)
	if err := claims.AdvanceWatermark(context.Background(), "acme", time.Time{}, clock); err != nil {
		t.Fatal(err)
	}
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: claims}}}}
	r := httptest.NewRequest(http.MethodGet, "/p/~watermark%23hosterp", nil)
	r.SetPathValue("id", "~watermark#hosterp")
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{"operator"}}))
	w := httptest.NewRecorder()
	op.DetailHandler().ServeHTTP(w, r)
	if w.Code != http.StatusNotFound {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}
