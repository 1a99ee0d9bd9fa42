package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
)

type oneTrace struct{ doc string }

func (o oneTrace) AIRecords(context.Context, string, string, string, int, string) ([]json.RawMessage, string, error) {
	return []json.RawMessage{json.RawMessage(o.doc)}, "", nil
}

type redactor func([]byte) ([]byte, error)

func (r redactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) { return r(doc) }

func aiGet(h *audit.AIActivity) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/api/ai/traces?claimId=se_abcdefghijklmnopqrstuvwxyz", nil)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "a", TenantID: "t1", Roles: []string{"approver"}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// What leaves is what the redactor returns, and a redactor that fails sends nothing.
func TestAIActivityRedactsOnTheWayOut(t *testing.T) {
	secret := `{"prompt":"key AKIAIOSFODNN7EXAMPLE"}`
	mask := redactor(func(b []byte) ([]byte, error) {
		return []byte(strings.ReplaceAll(string(b), "AKIAIOSFODNN7EXAMPLE", "[AWS_KEY]")), nil
	})
	w := aiGet(&audit.AIActivity{Records: oneTrace{secret}, Redactor: mask, Kind: audit.KindTrace})
	if w.Code != 200 || strings.Contains(w.Body.String(), "AKIA") || !strings.Contains(w.Body.String(), "[AWS_KEY]") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	broken := redactor(func([]byte) ([]byte, error) { return nil, errors.New("scanner down") })
	w = aiGet(&audit.AIActivity{Records: oneTrace{secret}, Redactor: broken, Kind: audit.KindTrace})
	if w.Code != 503 || strings.Contains(w.Body.String(), "AKIA") {
		t.Fatalf("failing redactor: %d %s", w.Code, w.Body)
	}
}
