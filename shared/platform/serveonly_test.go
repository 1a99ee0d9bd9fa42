package platform_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/tenant"
)

// A deployed function's tenant reads ask DynamoDB for its own purposes' secret attributes
// only: the GetItem it sends names them in its projection and names no other purpose's.
func TestServeOnlyProjectsTheFunctionsPurposes(t *testing.T) {
	var mu sync.Mutex
	var asked []map[string]string // each GetItem's projected attribute names
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct{ ExpressionAttributeNames map[string]string }
		_ = json.Unmarshal(body, &in)
		mu.Lock()
		asked = append(asked, in.ExpressionAttributeNames)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{}`)) // no such tenant
	}))
	t.Cleanup(srv.Close)
	vars := map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b",
		"AWS_ENDPOINT_URL": srv.URL, "STAGE": "t"}
	for fn, want := range map[string]struct{ reads, never []string }{
		"ingest":                  {[]string{"webhook_secrets", "settings"}, []string{"finance_secrets", "embedded_secrets", "flow_hosterp_secrets", "connectors"}},
		"finance-approval-create": {[]string{"finance_secrets"}, []string{"webhook_secrets", "embedded_secrets", "connectors"}},
		"flow-poll":               {[]string{"connectors"}, []string{"webhook_secrets", "flow_hosterp_secrets", "embedded_secrets"}},
	} {
		awsCfg, err := platform.AWSConfigFromEnv(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := platform.ConfigFromEnv(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		b := platform.New(cfg, awsCfg, env(vars))
		if err := b.ServeOnly(fn); err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		mu.Lock()
		asked = nil
		mu.Unlock()
		if _, err := b.HostTenants.Get(context.Background(), "acme"); err != tenant.ErrNotFound {
			t.Fatalf("%s: %v", fn, err)
		}
		mu.Lock()
		if len(asked) != 1 {
			t.Fatalf("%s: %d requests", fn, len(asked))
		}
		var names []string
		for _, n := range asked[0] {
			names = append(names, n)
		}
		mu.Unlock()
		for _, a := range want.reads {
			if !slices.Contains(names, a) {
				t.Errorf("%s: projection %v lacks %s", fn, names, a)
			}
		}
		for _, a := range want.never {
			if slices.Contains(names, a) {
				t.Errorf("%s: projection %v fetches %s, another purpose's", fn, names, a)
			}
		}
	}
	if err := platform.New(platform.Config{}, aws.Config{}, env(vars)).ServeOnly("no-such-function"); err == nil {
		t.Error("an unknown function was served")
	}
}
