package stack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// Environment variables every function gets besides its tables' and queues'.
const (
	envStage    = "STAGE"
	envLogLevel = "LOG_LEVEL"
)

// DefaultLogRetention is how long function logs are kept: long enough to investigate a
// month-end close, short enough that payload fragments in logs do not linger.
const DefaultLogRetention = awslogs.RetentionDays_ONE_MONTH

// AuditPseudonymSecretEnv names the secret that keys audit pseudonyms (platform.Config).
const AuditPseudonymSecretEnv = "AUDIT_PSEUDONYM_SECRET_ARN"

// SecretsKeyEnv names the KMS key that seals tenants' secrets (platform.Config).
const SecretsKeyEnv = "TENANT_SECRETS_KEY_ARN"

// FunctionTag is the tag key carrying a function's blueprint name on its Lambda, role and
// log group, for cost reports and for finding a function in a synthesized template.
const FunctionTag = "function"

// FunctionsProps configures NewFunctions.
type FunctionsProps struct {
	Stage string
	// Dir holds "<function name>/bootstrap" for every function. Each is deployed from its
	// zip, "<function name>.zip" beside it, which NewFunctions writes (bundleFunctions).
	Dir       string
	Functions []blueprint.Function
	Tables    *Tables
	Queues    *Queues
	// KeepLogs retains log groups when the stack lets go of them.
	KeepLogs     bool
	LogRetention awslogs.RetentionDays
	// AlertBus receives the ownership alerts of the functions marked PublishesAlerts.
	AlertBus awsevents.IEventBus
	// SecretsKey seals tenants' secrets; the functions that NeedsSecrets may decrypt with it
	// (and learn its ARN as SecretsKeyEnv), no other may.
	SecretsKey awskms.IKey
	// AuditPseudonymSecret keys the pseudonyms of masked audit actors; every function that
	// appends to or lists the audit log may read it (and learns its ARN), no other may.
	AuditPseudonymSecret awssecretsmanager.ISecret
	// AI configures the functions marked InvokesAI: their provider environment and, on
	// Bedrock, the one model they may invoke.
	AI AIProps
	// Identity configures the functions behind operator and approver routes.
	Identity IdentityProps
	// Console configures the console function's sign-in.
	Console ConsoleProps
	// Tracing turns on X-Ray active tracing, and with it the grant to write traces.
	Tracing bool
}

// Functions holds one Lambda per blueprint function.
type Functions struct {
	constructs.Construct
	byName map[string]awslambda.Function
	order  []string
	logs   awslogs.ILogGroup
}

// NewFunctions creates each function (arm64, provided.al2023) logging to the one log group
// of the service (Lambda names each stream after its function, so a function's lines stay
// apart; one group instead of one each keeps the stack under CloudFormation's 500 resources),
// the environment naming its tables and queues, and exactly the grants the blueprint lists.
// Functions marked InvokesAI also learn the AI provider (and on Bedrock may invoke its one
// model); functions behind operator or approver routes learn the JWT issuer.
// Queue-triggered functions also get their SQS event source here because the event source
// is what grants them the right to consume.
func NewFunctions(scope constructs.Construct, id string, props *FunctionsProps) *Functions {
	c := &Functions{Construct: constructs.NewConstruct(scope, jsii.String(id)), byName: map[string]awslambda.Function{}}
	retention := props.LogRetention
	if retention == "" {
		retention = DefaultLogRetention
	}
	logRemoval := awscdk.RemovalPolicy_DESTROY
	if props.KeepLogs {
		logRemoval = awscdk.RemovalPolicy_RETAIN
	}
	dir, err := filepath.Abs(props.Dir)
	if err != nil {
		dir = props.Dir
	}
	var names []string
	for _, f := range props.Functions {
		if !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}
	bundles, err := bundleFunctions(dir, names)
	if err != nil {
		// As the CDK's own constructs fail: the app cannot synthesize without the code.
		panic(fmt.Errorf("the functions' code bundles: %w", err))
	}

	logs := awslogs.NewLogGroup(c.Construct, jsii.String("Logs"), &awslogs.LogGroupProps{
		Retention:     retention,
		RemovalPolicy: logRemoval,
	})
	c.logs = logs
	for _, f := range props.Functions {
		if _, dup := c.byName[f.Name]; dup {
			continue // reported by validate
		}
		group := constructs.NewConstruct(c.Construct, jsii.String(constructID(f.Name)))
		awscdk.Tags_Of(group).Add(jsii.String(FunctionTag), jsii.String(f.Name), nil)

		env := map[string]*string{
			envStage:    jsii.String(props.Stage),
			envLogLevel: jsii.String("info"),
		}
		for _, g := range f.Tables {
			if t := props.Tables.Table(g.Table.Name); t != nil {
				env[g.Table.EnvVar] = t.TableName()
			}
		}
		for _, q := range f.SendsTo {
			if queue := props.Queues.Queue(q.Name); queue != nil {
				env[q.EnvVar] = queue.QueueUrl()
			}
		}
		if f.InvokesAI {
			for k, v := range props.AI.environment() {
				env[k] = jsii.String(v)
			}
		}
		if f.NeedsSecrets() && props.SecretsKey != nil {
			env[SecretsKeyEnv] = props.SecretsKey.KeyArn()
		}
		if pseudonymisesActors(f) && props.AuditPseudonymSecret != nil {
			env[AuditPseudonymSecretEnv] = props.AuditPseudonymSecret.SecretArn()
		}
		if f.PublishesAlerts && props.AlertBus != nil {
			env[AlertBusEnv] = props.AlertBus.EventBusName()
		}
		if verifiesJWT(f) {
			for k, v := range props.Identity.environment() {
				env[k] = jsii.String(v)
			}
		}
		if servesConsole(f) {
			for k, v := range props.Console.environment(props.Identity.Issuer) {
				env[k] = jsii.String(v)
			}
		}

		fnProps := &awslambda.FunctionProps{
			Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
			Architecture: awslambda.Architecture_ARM_64(),
			Handler:      jsii.String("bootstrap"),
			Code:         awslambda.Code_FromAsset(jsii.String(bundles[f.Name]), nil),
			MemorySize:   jsii.Number(float64(f.MemoryMB)),
			Environment:  &env,
			LogGroup:     logs,
			// JSON lines are queryable field by field in Logs Insights; the function's own
			// lines already are JSON (slog), with requestId and correlationId.
			LoggingFormat: awslambda.LoggingFormat_JSON,
		}
		if f.Timeout > 0 {
			fnProps.Timeout = seconds(f.Timeout)
		}
		if f.Description != "" {
			fnProps.Description = jsii.String(f.Description)
		}
		fnProps.Role = newRole(group, f.Name, logs)
		if props.Tracing {
			fnProps.Tracing = awslambda.Tracing_ACTIVE
		}
		fn := awslambda.NewFunction(group, jsii.String("Function"), fnProps)
		dropRoleDependsOn(fn, fnProps.Role)
		if props.Tracing {
			allowTraceWrites(fnProps.Role)
		}

		for _, g := range f.Tables {
			if t := props.Tables.Table(g.Table.Name); t != nil {
				if st := tableStatement(t, g); st != nil {
					fn.AddToRolePolicy(st)
				}
			}
		}
		for _, q := range f.SendsTo {
			if queue := props.Queues.Queue(q.Name); queue != nil {
				queue.GrantSendMessages(fn)
			}
		}
		if props.SecretsKey != nil {
			for _, st := range secretsKeyStatements(props.SecretsKey, f, requirePurpose(scope)) {
				fn.AddToRolePolicy(st)
			}
		}
		if pseudonymisesActors(f) && props.AuditPseudonymSecret != nil {
			props.AuditPseudonymSecret.GrantRead(fn, nil)
		}
		if f.PublishesAlerts && props.AlertBus != nil {
			props.AlertBus.GrantPutEventsTo(fn, nil)
		}
		if f.InvokesAI && props.AI.withDefaults().Provider == AIProviderOpenAI && props.AI.OpenAIKeySecretARN != "" {
			awssecretsmanager.Secret_FromSecretCompleteArn(group, jsii.String("OpenAIKey"),
				jsii.String(props.AI.OpenAIKeySecretARN)).GrantRead(fn, nil)
		}
		if f.InvokesAI && props.AI.grantsBedrock() {
			fn.AddToRolePolicy(bedrockInvokeStatement(fn, props.AI.Model))
			allowProfileRegions(fnProps.Role, props.AI.Model)
		}
		if f.Queue != nil {
			if queue := props.Queues.Queue(f.Queue.Name); queue != nil {
				es := &awslambdaeventsources.SqsEventSourceProps{
					// Without it one poisoned message would send its whole batch back to
					// the queue and, after MaxReceiveCount, to the DLQ.
					ReportBatchItemFailures: jsii.Bool(true),
				}
				if f.BatchSize > 0 {
					es.BatchSize = jsii.Number(float64(f.BatchSize))
				}
				if f.MaxConcurrency > 0 {
					es.MaxConcurrency = jsii.Number(float64(f.MaxConcurrency))
				}
				fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(queue, es))
			}
		}

		c.byName[f.Name] = fn
		c.order = append(c.order, f.Name)
	}
	return c
}

// Function returns the Lambda for a blueprint function name, or nil when none was declared.
func (c *Functions) Function(name string) awslambda.Function { return c.byName[name] }

// LogGroup is the one log group every function writes to (the saved queries read it).
func (c *Functions) LogGroup() awslogs.ILogGroup { return c.logs }

// Names lists the created functions' blueprint names in blueprint order.
func (c *Functions) Names() []string { return append([]string(nil), c.order...) }

// CheckFunctionsDir reports every function whose dir/<name>/bootstrap is missing. The CDK
// would otherwise fail deep inside asset staging with a path and no hint of the cause.
func CheckFunctionsDir(dir string, fns []blueprint.Function) error {
	var errs []error
	for _, f := range fns {
		p := filepath.Join(dir, f.Name, "bootstrap")
		info, err := os.Stat(p)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("function %s: %w", f.Name, err))
		case info.IsDir():
			errs = append(errs, fmt.Errorf("function %s: %s is a directory", f.Name, p))
		}
	}
	return errors.Join(errs...)
}

// pseudonymisesActors reports whether f writes the audit log, and so may have to
// pseudonymise an actor, or lists it, and so may have to pseudonymise the actor an auditor
// filters by.
func pseudonymisesActors(f blueprint.Function) bool {
	for _, g := range f.Tables {
		if g.Table.Name == blueprint.Audit.Name {
			return true
		}
	}
	return false
}
