// Package stack owns the service's AWS shape as CDK constructs: DynamoDB tables, SQS
// queues, one Lambda per function, the HTTP API, EventBridge schedules and alarms. Every
// resource is derived from package blueprint, so declaring a table, queue or function
// there is enough for it to be deployed, granted and watched; nothing here repeats a
// name, key or timeout.
//
// Each construct type (Tables, Queues, Functions, API, Schedules, Alarms) embeds the plain
// construct it builds in, in the style of the CDK Go workshop. jsii cannot marshal the Go
// wrapper itself, so give the embedded value (tables.Construct), not the wrapper, as the
// scope of a new construct.
package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// Defaults for ServiceProps.
const (
	DefaultStage        = "dev"
	DefaultFunctionsDir = "build/functions"
)

// ServiceProps configures NewService.
type ServiceProps struct {
	awscdk.StackProps
	// Stage prefixes physical names ("dev" when empty). Every stage except "dev" keeps its
	// tables when the stack or a table is deleted.
	Stage string
	// FunctionsDir holds "<function name>/bootstrap" for every function (DefaultFunctionsDir
	// when empty). Relative paths are taken from the working directory. Synthesis writes
	// each function's zip, "<function name>.zip", there beside its directory.
	FunctionsDir string
	// AlarmEmail, when set, is subscribed to the alarm topics (page and ticket).
	AlarmEmail string
	// RunbookBase is the URL alarm descriptions prefix runbook paths with (default
	// oncall.DefaultRunbookBase; context key runbookBaseUrl).
	RunbookBase string
	// AI configures the functions marked InvokesAI (provider AIProviderRules when empty).
	AI AIProps
	// Identity configures how operator and approver routes verify JWTs. Without an Issuer
	// synthesis warns, and those routes answer 503.
	Identity IdentityProps
	// Console configures the operator console's OpenID Connect sign-in.
	Console ConsoleProps
	// CORSOrigins are the exact origins besides the API's own that browsers may call it
	// from (an ERP-hosted panel, a developer's console); none by default.
	CORSOrigins []string
	// Tracing turns on X-Ray active tracing of every function (off by default: traces cost
	// per segment, and the logs already carry the correlation id end to end). The HTTP API
	// cannot trace: API Gateway's HTTP APIs do not support X-Ray (only REST API stages do),
	// so a trace starts at the function.
	Tracing bool

	// Tables, Queues and Functions default to blueprint's lists. They exist so that a test
	// can prove the stack follows whatever the blueprint declares; the app leaves them nil.
	Tables    []blueprint.Table
	Queues    []blueprint.Queue
	Functions []blueprint.Function
}

// NewService builds the whole service in one stack.
func NewService(scope constructs.Construct, id string, props *ServiceProps) awscdk.Stack {
	p := withDefaults(props)
	if p.StackProps.Description == nil {
		p.StackProps.Description = jsii.String("SyncAssist serverless service (" + p.Stage + ")")
	}
	st := awscdk.NewStack(scope, jsii.String(id), &p.StackProps)
	// CloudFormation's schema of AWS::CloudWatch::Dashboard has no Tags in us-east-1 and
	// eleven other regions (cfn-lint 1.51.0's bundled schemas; 34 regions have them), and
	// an unknown property fails the deploy there, so the dashboard goes untagged everywhere.
	untagged := &awscdk.TagProps{ExcludeResourceTypes: jsii.Strings("AWS::CloudWatch::Dashboard")}
	awscdk.Tags_Of(st).Add(jsii.String("service"), jsii.String("syncassist"), untagged)
	awscdk.Tags_Of(st).Add(jsii.String("stage"), jsii.String(p.Stage), untagged)

	validate(st, p.Stage, p.Tables, p.Queues, p.Functions)
	validateAI(st, p.AI)
	checkIdentity(st, p.Identity, p.Functions)

	// Only dev is disposable: any other stage holds data someone will want back.
	disposable := p.Stage == DefaultStage

	tables := NewTables(st, "Tables", &TablesProps{Stage: p.Stage, Tables: p.Tables, Retain: !disposable})
	queues := NewQueues(st, "Queues", &QueuesProps{Stage: p.Stage, Queues: p.Queues})
	alertBus := NewAlertBus(st, "Alerts", p.Stage, p.Functions)
	secretsKey := newSecretsKey(st, !disposable)
	fns := NewFunctions(st, "Functions", &FunctionsProps{
		AlertBus:             alertBus,
		SecretsKey:           secretsKey,
		AuditPseudonymSecret: newAuditPseudonymSecret(st, !disposable),
		Stage:                p.Stage,
		Dir:                  p.FunctionsDir,
		Functions:            p.Functions,
		Tables:               tables,
		Queues:               queues,
		KeepLogs:             !disposable,
		LogRetention:         DefaultLogRetention,
		AI:                   p.AI,
		Identity:             p.Identity,
		Console:              p.Console,
		Tracing:              p.Tracing,
	})
	api := NewAPI(st, "Api", &APIProps{Stage: p.Stage, Functions: p.Functions, Lambdas: fns, CORSOrigins: p.CORSOrigins})
	NewSchedules(st, "Schedules", &SchedulesProps{Functions: p.Functions, Lambdas: fns})
	NewDashboard(st, "Dashboard", &DashboardProps{Stage: p.Stage, Queues: queues, Lambdas: fns, API: api.HttpApi})
	alarms := NewAlarms(st, "Alarms", &AlarmsProps{
		Email:       p.AlarmEmail,
		RunbookBase: p.RunbookBase,
		Stage:       p.Stage,
		Logs:        fns.LogGroup(),
		Tables:      tables,
		Queues:      queues,
		Lambdas:     fns,
		Functions:   p.Functions,
		API:         api.HttpApi,
	})

	// Outputs live at stack level so their names are stable contracts for scripts.
	awscdk.NewCfnOutput(st, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{
		Description: jsii.String("Base URL of the HTTP API (the ERP webhook and dashboard call it)"),
		Value:       api.HttpApi.Url(),
	})
	awscdk.NewCfnOutput(st, jsii.String("AlarmTopicArn"), &awscdk.CfnOutputProps{
		Description: jsii.String("SNS topic of tickets: every cause alarm and the slow error-budget burns (docs/operations.md)"),
		Value:       alarms.Topic.TopicArn(),
	})
	awscdk.NewCfnOutput(st, jsii.String("PageTopicArn"), &awscdk.CfnOutputProps{
		Description: jsii.String("SNS topic of pages: the fast error-budget burns only (docs/operations.md)"),
		Value:       alarms.Page.TopicArn(),
	})
	return st
}

func withDefaults(props *ServiceProps) ServiceProps {
	var p ServiceProps
	if props != nil {
		p = *props
	}
	if p.Stage == "" {
		p.Stage = DefaultStage
	}
	if p.FunctionsDir == "" {
		p.FunctionsDir = DefaultFunctionsDir
	}
	if p.Tables == nil {
		p.Tables = blueprint.Tables
	}
	if p.Queues == nil {
		p.Queues = blueprint.Queues
	}
	if p.Functions == nil {
		p.Functions = blueprint.Functions
	}
	p.AI = p.AI.withDefaults()
	p.Identity = p.Identity.withDefaults()
	return p
}

// newSecretsKey is the KMS key that seals tenants' webhook secrets and connector tokens
// (envelope encryption, the tenant id as encryption context). tenantctl seals with it
// (the ops engineer's credentials, -kms-key or TENANT_SECRETS_KEY_ARN); only the functions
// that check host signatures or call connectors may decrypt.
func newSecretsKey(scope constructs.Construct, retain bool) awskms.IKey {
	removal := awscdk.RemovalPolicy_DESTROY
	if retain {
		removal = awscdk.RemovalPolicy_RETAIN
	}
	key := awskms.NewKey(scope, jsii.String("TenantSecretsKey"), &awskms.KeyProps{
		Description:       jsii.String("Seals tenants' webhook secrets and connector tokens"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     removal,
	})
	awscdk.NewCfnOutput(scope, jsii.String("TenantSecretsKeyArn"), &awscdk.CfnOutputProps{
		Value:       key.KeyArn(),
		Description: jsii.String("KMS key of tenant secrets: set TENANT_SECRETS_KEY_ARN to it for tenantctl"),
	})
	return key
}

// newAuditPseudonymSecret is the stage's key for audit pseudonyms (audit.Log): generated
// by Secrets Manager, never in the template or a function's configuration.
func newAuditPseudonymSecret(scope constructs.Construct, retain bool) awssecretsmanager.ISecret {
	removal := awscdk.RemovalPolicy_DESTROY
	if retain {
		removal = awscdk.RemovalPolicy_RETAIN
	}
	secret := awssecretsmanager.NewSecret(scope, jsii.String("AuditPseudonymKey"), &awssecretsmanager.SecretProps{
		Description: jsii.String("Keys the pseudonyms of masked actors in the audit log"),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength:     jsii.Number(64),
			ExcludePunctuation: jsii.Bool(true),
		},
		RemovalPolicy: removal,
	})
	suppress(secret, "SMG4", "A new key gives everyone a new pseudonym, so rotating it would cut each person's trail "+
		"through the audit log in two; the key never leaves Secrets Manager and the functions that append to or list the log")
	return secret
}
