package stack

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// ClaimIndexProjectionsContext is the context key choosing what the claim table's
// by_status and by_diagnosis indexes project: ClaimIndexProjectionsLean (the default) is
// the blueprint's own (INCLUDE and KEYS_ONLY), ClaimIndexProjectionsAll keeps both on ALL
// for a stage deployed before 2026-11-29. CloudFormation cannot move such a stage to the
// lean ones in one update: DynamoDB's UpdateTable changes an existing index's throughput
// only and creates or deletes one index per call (API reference,
// GlobalSecondaryIndexUpdate,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexUpdate.html).
// The functions read either: ALL projects more than the lean ones.
const ClaimIndexProjectionsContext = "claimIndexProjections"

// Values of ClaimIndexProjectionsContext.
const (
	ClaimIndexProjectionsLean = "lean"
	ClaimIndexProjectionsAll  = "all"
)

// TablesProps configures NewTables.
type TablesProps struct {
	Stage  string
	Tables []blueprint.Table
	// Retain turns on deletion protection and keeps the tables when the stack lets go of
	// them; off only for a disposable stage.
	Retain bool
}

// Tables holds one DynamoDB table per blueprint table.
type Tables struct {
	constructs.Construct
	byName  map[string]awsdynamodb.Table
	order   []string
	indexes map[string][]string
}

// NewTables creates the tables on demand billing with point-in-time recovery and
// AWS-managed encryption.
func NewTables(scope constructs.Construct, id string, props *TablesProps) *Tables {
	c := &Tables{Construct: constructs.NewConstruct(scope, jsii.String(id)), byName: map[string]awsdynamodb.Table{}, indexes: map[string][]string{}}
	keepClaimIndexesAll := claimIndexesProjectAll(scope)
	removal := awscdk.RemovalPolicy_DESTROY
	if props.Retain {
		removal = awscdk.RemovalPolicy_RETAIN
	}
	for _, t := range props.Tables {
		if _, dup := c.byName[t.Name]; dup {
			continue // reported by validate
		}
		tp := &awsdynamodb.TableProps{
			TableName:    jsii.String(blueprint.PhysicalName(props.Stage, t.Name)),
			PartitionKey: attribute(t.PartitionKey),
			BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
			PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
				PointInTimeRecoveryEnabled: jsii.Bool(true),
			},
			// AWS-managed rather than the default AWS-owned key: the key and its use show
			// up in the account's KMS and CloudTrail, with no key of our own to manage.
			Encryption:         awsdynamodb.TableEncryption_AWS_MANAGED,
			DeletionProtection: jsii.Bool(props.Retain),
			RemovalPolicy:      removal,
		}
		if t.SortKey != nil {
			tp.SortKey = attribute(*t.SortKey)
		}
		if t.TTLAttribute != "" {
			tp.TimeToLiveAttribute = jsii.String(t.TTLAttribute)
		}
		table := awsdynamodb.NewTable(c.Construct, jsii.String(constructID(t.Name)), tp)
		for _, ix := range t.Indexes {
			projection := ix.Projection
			if keepClaimIndexesAll && isClaimIndex(t, ix) {
				projection = blueprint.Projection{}
			}
			gsi := &awsdynamodb.GlobalSecondaryIndexProps{
				IndexName:      jsii.String(ix.Name),
				PartitionKey:   attribute(ix.PartitionKey),
				ProjectionType: awsdynamodb.ProjectionType(projection.Type()),
			}
			if len(projection.Include) > 0 && !projection.KeysOnly {
				gsi.NonKeyAttributes = jsii.Strings(projection.Include...)
			}
			if ix.SortKey != nil {
				gsi.SortKey = attribute(*ix.SortKey)
			}
			table.AddGlobalSecondaryIndex(gsi)
			c.indexes[t.Name] = append(c.indexes[t.Name], ix.Name)
		}
		c.byName[t.Name] = table
		c.order = append(c.order, t.Name)
	}
	return c
}

// claimIndexesProjectAll reads ClaimIndexProjectionsContext from scope's context; an
// unknown value is a synthesis error (and the blueprint's projections stay).
func claimIndexesProjectAll(scope constructs.Construct) bool {
	v := scope.Node().TryGetContext(jsii.String(ClaimIndexProjectionsContext))
	if v == nil {
		return false
	}
	switch s, _ := v.(string); s {
	case ClaimIndexProjectionsAll:
		return true
	case ClaimIndexProjectionsLean, "":
		return false
	}
	awscdk.Annotations_Of(scope).AddError(jsii.String(fmt.Sprintf("context %s %q: want %q or %q (%q for a stage deployed before 2026-11-29)",
		ClaimIndexProjectionsContext, fmt.Sprint(v), ClaimIndexProjectionsLean, ClaimIndexProjectionsAll, ClaimIndexProjectionsAll)))
	return false
}

// isClaimIndex reports whether ix is one of the claim table's indexes that
// ClaimIndexProjectionsAll keeps on ALL.
func isClaimIndex(t blueprint.Table, ix blueprint.Index) bool {
	return t.Name == blueprint.Processed.Name && (ix.Name == blueprint.IndexByStatus || ix.Name == blueprint.IndexByDiagnosis)
}

// Table returns the table for a blueprint table name, or nil when none was declared.
func (c *Tables) Table(name string) awsdynamodb.Table { return c.byName[name] }

// Indexes names a table's global secondary indexes in blueprint order.
func (c *Tables) Indexes(name string) []string { return append([]string(nil), c.indexes[name]...) }

// Names lists the created tables' blueprint names in blueprint order.
func (c *Tables) Names() []string { return append([]string(nil), c.order...) }

func attribute(k blueprint.Key) *awsdynamodb.Attribute {
	t := awsdynamodb.AttributeType_STRING
	switch k.Type {
	case blueprint.Number:
		t = awsdynamodb.AttributeType_NUMBER
	case "B":
		t = awsdynamodb.AttributeType_BINARY
	}
	return &awsdynamodb.Attribute{Name: jsii.String(k.Name), Type: t}
}
