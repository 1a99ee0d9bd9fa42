package tenant

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// DynamoStore is the Store on the tenant configuration table: one item per tenant, so
// the ingest reads a tenant's flags and secrets with one GetItem.
type DynamoStore struct {
	client *dynamodb.Client
	table  string
	// Keeper seals secret values and connector tokens before they are written (nil: they
	// are written as given). Reads return them sealed; Config.Opened opens them.
	Keeper Keeper
}

// seal seals c's secrets with the store's keeper.
func (s *DynamoStore) seal(ctx context.Context, c Config) (Config, error) {
	if s.Keeper == nil {
		return c, nil
	}
	return c.Sealed(ctx, s.Keeper)
}

var _ Store = (*DynamoStore)(nil)

// NewDynamoStore returns the store for the physical table name.
func NewDynamoStore(client *dynamodb.Client, table string) *DynamoStore {
	return &DynamoStore{client: client, table: table}
}

func tenantItem(c Config) dynamostore.Item {
	settings := dynamostore.Item{}
	for k, v := range c.Settings {
		settings[k] = dynamostore.Str(v)
	}
	conns := dynamostore.Item{}
	for sys, cc := range c.Connectors {
		m := dynamostore.Item{"base_url": dynamostore.Str(cc.BaseURL)}
		dynamostore.PutOptional(m, "token", cc.Token)
		dynamostore.PutOptional(m, "token_url", cc.TokenURL)
		dynamostore.PutOptional(m, "scope", cc.Scope)
		conns[sys] = &types.AttributeValueMemberM{Value: m}
	}
	it := dynamostore.Item{
		"connectors":                      &types.AttributeValueMemberM{Value: conns},
		"tenant_id":                       dynamostore.Str(c.ID),
		blueprint.TenantSettingsAttribute: &types.AttributeValueMemberM{Value: settings},
		"created_at":                      dynamostore.Str(dynamostore.FormatTime(c.CreatedAt)),
		"updated_at":                      dynamostore.Str(dynamostore.FormatTime(c.UpdatedAt)),
		"version":                         dynamostore.Num(c.Version),
	}
	for _, p := range Purposes {
		it[secretsAttr[p]] = secretList(*c.Secrets(p))
	}
	if len(c.SystemAliases) > 0 {
		aliases := dynamostore.Item{}
		for name, sys := range c.SystemAliases {
			aliases[name] = dynamostore.Str(sys)
		}
		it[systemAliasesAttr] = &types.AttributeValueMemberM{Value: aliases}
	}
	return it
}

// systemAliasesAttr holds the tenant's system aliases: plain (blueprint.TenantPlainAttributes),
// so every reader of settings reads them.
const systemAliasesAttr = "system_aliases"

// secretsAttr names the attribute holding each purpose's secrets. The webhook's keeps its
// name from before purposes existed; a flow source's is "flow_<system>_secrets".
var secretsAttr = func() map[Purpose]string {
	m := map[Purpose]string{
		PurposeIngest: "webhook_secrets", PurposeFinance: "finance_secrets", PurposeEmbedded: "embedded_secrets",
	}
	for _, sys := range FlowSources {
		m[FlowPurpose(sys)] = "flow_" + sys + "_secrets"
	}
	return m
}()

func secretList(secrets []Secret) *types.AttributeValueMemberL {
	l := make([]types.AttributeValue, 0, len(secrets))
	for _, s := range secrets {
		m := dynamostore.Item{"value": dynamostore.Str(s.Value), "created_at": dynamostore.Str(dynamostore.FormatTime(s.CreatedAt))}
		if !s.RetireAt.IsZero() {
			m["retire_at"] = dynamostore.Str(dynamostore.FormatTime(s.RetireAt))
		}
		l = append(l, &types.AttributeValueMemberM{Value: m})
	}
	return &types.AttributeValueMemberL{Value: l}
}

func secretsFrom(it dynamostore.Item, attr string) ([]Secret, error) {
	l, ok := it[attr].(*types.AttributeValueMemberL)
	if !ok {
		return nil, nil
	}
	var out []Secret
	for _, v := range l.Value {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			continue
		}
		created, err1 := dynamostore.ParseTime(dynamostore.GetString(m.Value, "created_at"))
		retire, err2 := dynamostore.ParseTime(dynamostore.GetString(m.Value, "retire_at"))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("malformed %s times", attr)
		}
		out = append(out, Secret{Value: dynamostore.GetString(m.Value, "value"), CreatedAt: created, RetireAt: retire})
	}
	return out, nil
}

func tenantFrom(it dynamostore.Item) (Config, error) {
	c := settingsFrom(it)
	for _, p := range Purposes {
		secrets, err := secretsFrom(it, secretsAttr[p])
		if err != nil {
			return Config{}, fmt.Errorf("tenant %s: %w", c.ID, err)
		}
		*c.Secrets(p) = secrets
	}
	if m, ok := it["connectors"].(*types.AttributeValueMemberM); ok && len(m.Value) > 0 {
		c.Connectors = map[string]Connector{}
		for sys, v := range m.Value {
			if cm, ok := v.(*types.AttributeValueMemberM); ok {
				c.Connectors[sys] = Connector{BaseURL: dynamostore.GetString(cm.Value, "base_url"), Token: dynamostore.GetString(cm.Value, "token"),
					TokenURL: dynamostore.GetString(cm.Value, "token_url"), Scope: dynamostore.GetString(cm.Value, "scope")}
			}
		}
	}
	var err error
	if c.CreatedAt, err = dynamostore.ParseTime(dynamostore.GetString(it, "created_at")); err != nil {
		return Config{}, fmt.Errorf("tenant %s: created_at: %w", c.ID, err)
	}
	if c.UpdatedAt, err = dynamostore.ParseTime(dynamostore.GetString(it, "updated_at")); err != nil {
		return Config{}, fmt.Errorf("tenant %s: updated_at: %w", c.ID, err)
	}
	if c.Version, err = dynamostore.GetInt(it, "version"); err != nil {
		return Config{}, fmt.Errorf("tenant %s: version: %w", c.ID, err)
	}
	return c, nil
}

// Get implements Store.
func (s *DynamoStore) Get(ctx context.Context, id string) (Config, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            dynamostore.Item{"tenant_id": dynamostore.Str(id)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return Config{}, fmt.Errorf("get tenant %s: %w", id, err)
	}
	if out.Item == nil {
		return Config{}, ErrNotFound
	}
	return tenantFrom(out.Item)
}

// settingsFrom is the tenant of it with its settings alone.
func settingsFrom(it dynamostore.Item) Config {
	c := Config{ID: dynamostore.GetString(it, "tenant_id"), Settings: map[string]string{}}
	if m, ok := it[blueprint.TenantSettingsAttribute].(*types.AttributeValueMemberM); ok {
		for k, v := range m.Value {
			if s, ok := v.(*types.AttributeValueMemberS); ok {
				c.Settings[k] = s.Value
			}
		}
	}
	if m, ok := it[systemAliasesAttr].(*types.AttributeValueMemberM); ok && len(m.Value) > 0 {
		c.SystemAliases = map[string]string{}
		for name, v := range m.Value {
			if s, ok := v.(*types.AttributeValueMemberS); ok {
				c.SystemAliases[name] = s.Value
			}
		}
	}
	return c
}

// Exists reports whether tenant id exists, reading its key alone: a function granted
// keys-only access (blueprint.KeysOnly) can call it and never sees settings or secrets.
func (s *DynamoStore) Exists(ctx context.Context, id string) (bool, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:            aws.String(s.table),
		Key:                  dynamostore.Item{"tenant_id": dynamostore.Str(id)},
		ProjectionExpression: aws.String("tenant_id"),
	})
	if err != nil {
		return false, fmt.Errorf("probe tenant %s: %w", id, err)
	}
	return out.Item != nil, nil
}

// Create implements Store.
func (s *DynamoStore) Create(ctx context.Context, c Config) error {
	c, err := s.seal(ctx, c)
	if err != nil {
		return err
	}
	c.Version = 1
	refused, err := s.put(ctx, c, "attribute_not_exists(tenant_id)", nil)
	switch {
	case err != nil:
		return fmt.Errorf("create tenant %s: %w", c.ID, err)
	case refused:
		return ErrExists
	}
	return nil
}

// put stores c's item under cond and reports whether another writer's item refused it. A
// write token tells a put the SDK sent again after its first was applied (its answer
// lost) from another writer's: that one is done. As a refusal, tenantctl would report a
// tenant it created as existing and never show its secrets, and an update be applied
// again to what it wrote (a second rotation retires the new secret and drops the old one
// at once, with no grace).
func (s *DynamoStore) put(ctx context.Context, c Config, cond string, values dynamostore.Item) (refused bool, err error) {
	return dynamostore.PutOnce(ctx, s.client, s.table, dynamostore.Item{"tenant_id": dynamostore.Str(c.ID)}, tenantItem(c), cond, values)
}

// Update implements Store with a put conditional on the version read.
func (s *DynamoStore) Update(ctx context.Context, c Config) error {
	c, err := s.seal(ctx, c)
	if err != nil {
		return err
	}
	seen := c.Version
	c.Version++
	refused, err := s.put(ctx, c, "version = :seen", dynamostore.Item{":seen": dynamostore.Num(seen)})
	switch {
	case err != nil:
		return fmt.Errorf("update tenant %s: %w", c.ID, err)
	case refused:
		if _, gerr := s.Get(ctx, c.ID); gerr != nil {
			return gerr
		}
		return ErrConflict
	}
	return nil
}

// List implements Store. The table holds one small item per tenant, so a scan is
// the right tool.
func (s *DynamoStore) List(ctx context.Context) ([]Config, error) {
	return s.scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true)})
}

func (s *DynamoStore) scan(ctx context.Context, in *dynamodb.ScanInput) ([]Config, error) {
	var out []Config
	p := dynamodb.NewScanPaginator(s.client, in)
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
