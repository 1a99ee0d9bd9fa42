package dynamostore

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Tenants is the tenant.Store on the tenant configuration table: one item per tenant, so
// the ingest reads a tenant's flags and secrets with one GetItem.
type Tenants struct {
	client *dynamodb.Client
	table  string
	// Keeper seals secret values and connector tokens before they are written (nil: they
	// are written as given). Reads return them sealed; tenant.Config.Opened opens them.
	Keeper tenant.Keeper
}

// seal seals c's secrets with the store's keeper.
func (s *Tenants) seal(ctx context.Context, c tenant.Config) (tenant.Config, error) {
	if s.Keeper == nil {
		return c, nil
	}
	return c.Sealed(ctx, s.Keeper)
}

var _ tenant.Store = (*Tenants)(nil)

// NewTenants returns the store for the physical table name.
func NewTenants(client *dynamodb.Client, table string) *Tenants {
	return &Tenants{client: client, table: table}
}

func tenantItem(c tenant.Config) Item {
	settings := Item{}
	for k, v := range c.Settings {
		settings[k] = Str(v)
	}
	conns := Item{}
	for sys, cc := range c.Connectors {
		m := Item{"base_url": Str(cc.BaseURL)}
		PutOptional(m, "token", cc.Token)
		PutOptional(m, "token_url", cc.TokenURL)
		PutOptional(m, "scope", cc.Scope)
		conns[sys] = &types.AttributeValueMemberM{Value: m}
	}
	it := Item{
		"connectors":                      &types.AttributeValueMemberM{Value: conns},
		"tenant_id":                       Str(c.ID),
		blueprint.TenantSettingsAttribute: &types.AttributeValueMemberM{Value: settings},
		"created_at":                      Str(FormatTime(c.CreatedAt)),
		"updated_at":                      Str(FormatTime(c.UpdatedAt)),
		"version":                         Num(c.Version),
	}
	for _, p := range tenant.Purposes {
		it[secretsAttr[p]] = secretList(*c.Secrets(p))
	}
	return it
}

// secretsAttr names the attribute holding each purpose's secrets. The webhook's keeps its
// name from before purposes existed; a flow source's is "flow_<system>_secrets".
var secretsAttr = func() map[tenant.Purpose]string {
	m := map[tenant.Purpose]string{
		tenant.PurposeIngest: "webhook_secrets", tenant.PurposeFinance: "finance_secrets", tenant.PurposeEmbedded: "embedded_secrets",
	}
	for _, sys := range tenant.FlowSources {
		m[tenant.FlowPurpose(sys)] = "flow_" + sys + "_secrets"
	}
	return m
}()

func secretList(secrets []tenant.Secret) *types.AttributeValueMemberL {
	l := make([]types.AttributeValue, 0, len(secrets))
	for _, s := range secrets {
		m := Item{"value": Str(s.Value), "created_at": Str(FormatTime(s.CreatedAt))}
		if !s.RetireAt.IsZero() {
			m["retire_at"] = Str(FormatTime(s.RetireAt))
		}
		l = append(l, &types.AttributeValueMemberM{Value: m})
	}
	return &types.AttributeValueMemberL{Value: l}
}

func secretsFrom(it Item, attr string) ([]tenant.Secret, error) {
	l, ok := it[attr].(*types.AttributeValueMemberL)
	if !ok {
		return nil, nil
	}
	var out []tenant.Secret
	for _, v := range l.Value {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			continue
		}
		created, err1 := ParseTime(GetString(m.Value, "created_at"))
		retire, err2 := ParseTime(GetString(m.Value, "retire_at"))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("malformed %s times", attr)
		}
		out = append(out, tenant.Secret{Value: GetString(m.Value, "value"), CreatedAt: created, RetireAt: retire})
	}
	return out, nil
}

func tenantFrom(it Item) (tenant.Config, error) {
	c := settingsFrom(it)
	for _, p := range tenant.Purposes {
		secrets, err := secretsFrom(it, secretsAttr[p])
		if err != nil {
			return tenant.Config{}, fmt.Errorf("tenant %s: %w", c.ID, err)
		}
		*c.Secrets(p) = secrets
	}
	if m, ok := it["connectors"].(*types.AttributeValueMemberM); ok && len(m.Value) > 0 {
		c.Connectors = map[string]tenant.Connector{}
		for sys, v := range m.Value {
			if cm, ok := v.(*types.AttributeValueMemberM); ok {
				c.Connectors[sys] = tenant.Connector{BaseURL: GetString(cm.Value, "base_url"), Token: GetString(cm.Value, "token"),
					TokenURL: GetString(cm.Value, "token_url"), Scope: GetString(cm.Value, "scope")}
			}
		}
	}
	var err error
	if c.CreatedAt, err = ParseTime(GetString(it, "created_at")); err != nil {
		return tenant.Config{}, fmt.Errorf("tenant %s: created_at: %w", c.ID, err)
	}
	if c.UpdatedAt, err = ParseTime(GetString(it, "updated_at")); err != nil {
		return tenant.Config{}, fmt.Errorf("tenant %s: updated_at: %w", c.ID, err)
	}
	if c.Version, err = GetInt(it, "version"); err != nil {
		return tenant.Config{}, fmt.Errorf("tenant %s: version: %w", c.ID, err)
	}
	return c, nil
}

// Get implements tenant.Store.
func (s *Tenants) Get(ctx context.Context, id string) (tenant.Config, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            Item{"tenant_id": Str(id)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return tenant.Config{}, fmt.Errorf("get tenant %s: %w", id, err)
	}
	if out.Item == nil {
		return tenant.Config{}, tenant.ErrNotFound
	}
	return tenantFrom(out.Item)
}

// settingsFrom is the tenant of it with its settings alone.
func settingsFrom(it Item) tenant.Config {
	c := tenant.Config{ID: GetString(it, "tenant_id"), Settings: map[string]string{}}
	if m, ok := it[blueprint.TenantSettingsAttribute].(*types.AttributeValueMemberM); ok {
		for k, v := range m.Value {
			if s, ok := v.(*types.AttributeValueMemberS); ok {
				c.Settings[k] = s.Value
			}
		}
	}
	return c
}

// TenantSettings reads a tenant's settings and nothing else (a tenant.Reader whose
// configurations hold ID and Settings only): a function granted the key and the settings
// attribute alone (blueprint.SettingsOnly) can use it and never sees secrets or
// connectors.
type TenantSettings struct{ *Tenants }

// Get implements tenant.Reader.
func (s TenantSettings) Get(ctx context.Context, id string) (tenant.Config, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.table),
		Key:                      Item{"tenant_id": Str(id)},
		ProjectionExpression:     aws.String("#k, #s"),
		ExpressionAttributeNames: map[string]string{"#k": "tenant_id", "#s": blueprint.TenantSettingsAttribute},
	})
	if err != nil {
		return tenant.Config{}, fmt.Errorf("get tenant %s settings: %w", id, err)
	}
	if out.Item == nil {
		return tenant.Config{}, tenant.ErrNotFound
	}
	return settingsFrom(out.Item), nil
}

// Exists reports whether tenant id exists, reading its key alone: a function granted
// keys-only access (blueprint.KeysOnly) can call it and never sees settings or secrets.
func (s *Tenants) Exists(ctx context.Context, id string) (bool, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:            aws.String(s.table),
		Key:                  Item{"tenant_id": Str(id)},
		ProjectionExpression: aws.String("tenant_id"),
	})
	if err != nil {
		return false, fmt.Errorf("probe tenant %s: %w", id, err)
	}
	return out.Item != nil, nil
}

// Create implements tenant.Store.
func (s *Tenants) Create(ctx context.Context, c tenant.Config) error {
	c, err := s.seal(ctx, c)
	if err != nil {
		return err
	}
	c.Version = 1
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.table),
		Item:                tenantItem(c),
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if IsConditionFailed(err) {
		return tenant.ErrExists
	}
	if err != nil {
		return fmt.Errorf("create tenant %s: %w", c.ID, err)
	}
	return nil
}

// Update implements tenant.Store with a put conditional on the version read.
func (s *Tenants) Update(ctx context.Context, c tenant.Config) error {
	c, err := s.seal(ctx, c)
	if err != nil {
		return err
	}
	seen := c.Version
	c.Version++
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(s.table),
		Item:                      tenantItem(c),
		ConditionExpression:       aws.String("version = :seen"),
		ExpressionAttributeValues: Item{":seen": Num(seen)},
	})
	if IsConditionFailed(err) {
		if _, gerr := s.Get(ctx, c.ID); gerr != nil {
			return gerr
		}
		return tenant.ErrConflict
	}
	if err != nil {
		return fmt.Errorf("update tenant %s: %w", c.ID, err)
	}
	return nil
}

// List implements tenant.Store. The table holds one small item per tenant, so a scan is
// the right tool.
func (s *Tenants) List(ctx context.Context) ([]tenant.Config, error) {
	var out []tenant.Config
	p := dynamodb.NewScanPaginator(s.client, &dynamodb.ScanInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list tenants: %w", err)
		}
		for _, it := range page.Items {
			c, err := tenantFrom(it)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
