package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// The DynamoDB actions of each access level. The CDK's own grants also allow the stream
// actions (no table has a stream) and every index through "index/*"; these name only what
// the stores call, on the table and the indexes it declares.
var (
	tableReads  = []string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:Scan", "dynamodb:ConditionCheckItem", "dynamodb:DescribeTable"}
	tableWrites = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
)

// newRole is a function's execution role: it may write its own log group and nothing else
// until its grants are added. It replaces the AWS-managed basic execution policy, which
// allows writing to every log group of the account.
func newRole(scope constructs.Construct, name string, logs awslogs.ILogGroup) awsiam.IRole {
	role := awsiam.NewRole(scope, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("Execution role of function " + name),
	})
	logs.GrantWrite(role)
	return role
}

// dropRoleDependsOn keeps the role out of a function's DependsOn. The CDK makes a function
// depend on everything under its role, so that it is never invoked before its policies
// exist; for the role itself that repeats the dependency the GetAtt of its ARN already
// makes, which cfn-lint reports (W3005). The list is read when the template is rendered,
// after the CDK has resolved every dependency, so a dependency added later stays.
func dropRoleDependsOn(fn awslambda.Function, role awsiam.IRole) {
	cfn, ok := fn.Node().DefaultChild().(awscdk.CfnResource)
	if !ok || role.Node().DefaultChild() == nil {
		return
	}
	rolePath := *role.Node().DefaultChild().Node().Path()
	cfn.AddOverride(jsii.String("DependsOn"), awscdk.Lazy_List(&listProducer{func() *[]*string {
		var ids []*string
		for _, d := range *cfn.ObtainResourceDependencies() {
			if *d.Node().Path() != rolePath {
				ids = append(ids, d.LogicalId())
			}
		}
		return &ids
	}}, &awscdk.LazyListValueOptions{OmitEmpty: jsii.Bool(true)}))
}

// listProducer is a Lazy list's producer (jsii passes a struct, not a func, to the CDK).
type listProducer struct{ produce func() *[]*string }

func (p *listProducer) Produce() *[]*string { return p.produce() }

// allowTraceWrites accepts the wildcard of the X-Ray grant that active tracing adds to role.
func allowTraceWrites(role awsiam.IRole) {
	policy := role.Node().TryFindChild(jsii.String("DefaultPolicy"))
	if policy == nil {
		return
	}
	suppress(policy, "IAM5", "X-Ray's PutTraceSegments and PutTelemetryRecords support no resource-level "+
		"permissions: they can only be granted on \"*\" (granted only when the stage turns tracing on)", "Resource::*")
}

// tableStatement is the statement of one blueprint table grant (nil for an access level it
// does not know, which validate reports).
func tableStatement(t awsdynamodb.ITable, g blueprint.TableGrant) awsiam.PolicyStatement {
	var actions []string
	switch g.Access {
	case blueprint.Read:
		actions = tableReads
	case blueprint.ReadWrite:
		actions = append(append([]string(nil), tableReads...), tableWrites...)
	case blueprint.Append:
		// A new item and nothing else: no read, rewrite or delete; indexes take no writes.
		return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("dynamodb:PutItem", "dynamodb:DescribeTable"),
			Resources: &[]*string{t.TableArn()},
		})
	case blueprint.KeysOnly, blueprint.SettingsOnly:
		return keysOnlyStatement(t, g)
	default:
		return nil
	}
	resources := []*string{t.TableArn()}
	for _, ix := range g.Table.Indexes {
		resources = append(resources, jsii.String(*t.TableArn()+"/index/"+ix.Name))
	}
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: jsii.Strings(actions...), Resources: &resources})
}

// keysOnlyStatement lets a function read the key attributes of table's items and nothing
// else (fine-grained access control): it can tell that a tenant exists, not read its
// settings or secrets. SettingsOnly reads the attributes that hold no secret.
func keysOnlyStatement(t awsdynamodb.ITable, g blueprint.TableGrant) awsiam.PolicyStatement {
	keys := []*string{jsii.String(g.Table.PartitionKey.Name)}
	if g.Table.SortKey != nil {
		keys = append(keys, jsii.String(g.Table.SortKey.Name))
	}
	if g.Access == blueprint.SettingsOnly {
		keys = *jsii.Strings(blueprint.TenantPlainAttributes...)
	}
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("dynamodb:GetItem"),
		Resources: &[]*string{t.TableArn()},
		Conditions: &map[string]any{
			"ForAllValues:StringEquals": map[string]any{"dynamodb:Attributes": keys},
			"StringEqualsIfExists":      map[string]any{"dynamodb:Select": "SPECIFIC_ATTRIBUTES"},
		},
	})
}

// PurposeCondition is the KMS condition key naming a sealed value's purpose (its
// encryption context's "purpose", which tenant.Config.EncryptionContext sets).
const PurposeCondition = "kms:EncryptionContext:purpose"

// RequirePurposeContext is the context key that makes the Decrypt grants require the
// purpose (StringEquals). On unless set to false: a new deployment seals every value
// under its purpose. A deployment that sealed values before purposes had contexts of
// their own keeps it false until "tenantctl reseal -all" has moved them and "tenantctl
// reseal -check" finds none left; with it on, such a value no longer opens.
const RequirePurposeContext = "kmsRequirePurpose"

// requirePurpose reads RequirePurposeContext from scope's context; a value that is not a
// boolean is a synthesis error (and the grant stays strict).
func requirePurpose(scope constructs.Construct) bool {
	v := scope.Node().TryGetContext(jsii.String(RequirePurposeContext))
	if v == nil {
		return true
	}
	on, err := ParseFlag(v)
	if err != nil {
		awscdk.Annotations_Of(scope).AddError(jsii.String("context " + RequirePurposeContext + ": " + err.Error()))
		return true
	}
	return on || v == ""
}

// secretsKeyStatements are f's grants on the tenant secrets key. Opening is Decrypt of the
// purposes f serves only, so the flow poll cannot open the embedded bootstrap secret: a
// value opens only under its exact context, which the condition holds to f's purposes.
// With requirePurpose false the test is StringEqualsIfExists, which also opens a value
// sealed before purposes had contexts of their own (no "purpose" in its context) until
// "tenantctl reseal" seals it again; with it true (RequirePurposeContext) the purpose is
// required. Sealing is GenerateDataKey (envelope encryption), of any purpose: a data key
// made opens nothing stored. Nothing more (GrantEncryptDecrypt's wildcards would add
// ReEncrypt).
func secretsKeyStatements(key awskms.IKey, f blueprint.Function, requirePurpose bool) []awsiam.PolicyStatement {
	statement := func(action, test string, purposes []string) awsiam.PolicyStatement {
		return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Effect:     awsiam.Effect_ALLOW,
			Actions:    jsii.Strings(action),
			Resources:  jsii.Strings(*key.KeyArn()),
			Conditions: &map[string]any{test: map[string]any{PurposeCondition: purposes}},
		})
	}
	var out []awsiam.PolicyStatement
	if opens := f.Opens(); len(opens) > 0 {
		test := "StringEqualsIfExists"
		if requirePurpose {
			test = "StringEquals"
		}
		out = append(out, statement("kms:Decrypt", test, opens))
	}
	if f.SealsSecrets {
		out = append(out, statement("kms:GenerateDataKey", "StringEquals", blueprint.SecretPurposes))
	}
	return out
}
