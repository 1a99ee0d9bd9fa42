package compose_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/tenant"
)

// With a key keeper configured, a tenant's secrets and connector tokens are sealed in the
// table, and the whole flow still works: the webhook's signature verifies (its secret is
// opened where it is checked) and the write-back reaches the ERP with its token.
func TestTenantSecretsAreSealedAtRest(t *testing.T) {
	t.Setenv("LOCAL_SEALING_KEY", sealed.NewLocalKey())
	f := newFlow(t)
	const token = "erp-bearer-token-do-not-store"
	f.erp.RequireToken(token)
	cfg, err := f.deps.Tenants.Get(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := (tenant.Admin{Store: f.deps.Tenants}).SetConnector(context.Background(), "demo", "hosterp", cfg.Connectors["hosterp"].BaseURL, token); err != nil {
		t.Fatal(err)
	}
	out, err := f.deps.DB.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(f.deps.Config.Table(blueprint.Tenants)),
		Key:       map[string]types.AttributeValue{"tenant_id": &types.AttributeValueMemberS{Value: "demo"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := mustJSON(t, out.Item)
	if strings.Contains(string(raw), fixtureSecret) || strings.Contains(string(raw), token) {
		t.Fatalf("the tenant row holds a secret in the clear: %s", raw)
	}
	if n := strings.Count(string(raw), sealed.Prefix); n < len(tenant.Purposes)+1 {
		t.Fatalf("%d sealed values in the row, want every secret and the token: %s", n, raw)
	}
	id := f.diagnosed(t) // ingest verifies the signature against the opened secret
	if w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", ""); w.Code != 200 {
		t.Fatalf("approve with a sealed connector token: %d %s", w.Code, w.Body)
	}
	if f.erp.WriteCount() != 1 {
		t.Fatalf("%d ERP writes", f.erp.WriteCount())
	}
}
