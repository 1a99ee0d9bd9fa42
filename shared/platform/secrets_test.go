package platform_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/platform"
)

// A deployed stage keys audit pseudonyms with its Secrets Manager secret (an httptest server
// speaking its JSON protocol stands in): read when a masked actor is first audited, kept
// once read, and tried again after a failed read, which costs that record its pseudonym
// only.
func TestAuditPseudonymKeyFromTheStagesSecret(t *testing.T) {
	const arn = "arn:aws:secretsmanager:eu-central-1:123456789012:secret:audit-pseudonym-AbCdEf"
	var reads, fail atomic.Int32
	fail.Store(1)
	secrets := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reads.Add(1)
		if fail.Load() == 1 || !strings.Contains(string(body), arn) {
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"AccessDeniedException","message":"not yet"}`)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_, _ = io.WriteString(w, `{"ARN":"`+arn+`","SecretString":"a pseudonym key of well over 32 characters"}`)
	}))
	defer secrets.Close()
	vars := map[string]string{"AWS_REGION": "eu-central-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": secrets.URL, platform.EnvAuditPseudonymSecret: arn}
	awsCfg, err := platform.AWSConfigFromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := platform.ConfigFromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	b := platform.New(cfg, awsCfg, env(vars))
	store := &audittest.Store{}
	b.Audit.Store = store
	write := func(actor string) string {
		t.Helper()
		id := identity.Identity{TenantID: "acme", Actor: actor, Source: identity.SourceUser}
		if err := b.Audit.Write(context.Background(), audit.Entry{Actor: id, ActionType: audit.TypeSyncError,
			ActionKey: "syncerror.approve", Result: audit.ResultSuccess}); err != nil {
			t.Fatal(err)
		}
		all := store.All()
		return all[len(all)-1].Actor.Actor
	}
	if a := write("schedule:reconcile"); a != "schedule:reconcile" || reads.Load() != 0 {
		t.Fatalf("actor %q after %d reads: an unmasked actor needs no key", a, reads.Load())
	}
	if a := write("jane.doe@example.com"); a != "[REDACTED:EMAIL]" || reads.Load() == 0 {
		t.Fatalf("actor %q after %d reads: want the mask alone while the secret cannot be read", a, reads.Load())
	}
	fail.Store(0)
	before := reads.Load()
	first := write("jane.doe@example.com")
	if !strings.HasPrefix(first, "[REDACTED:EMAIL] ~p:") || reads.Load() != before+1 {
		t.Fatalf("actor %q after %d reads: want a pseudonym from one more read", first, reads.Load()-before)
	}
	if again := write("Jane.Doe@example.com"); again != first || reads.Load() != before+1 {
		t.Fatalf("actor %q (first %q), reads %d: want the same pseudonym from the kept key", again, first, reads.Load()-before)
	}
}
