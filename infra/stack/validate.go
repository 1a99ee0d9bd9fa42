package stack

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// stagePattern keeps "<stage>-<name>" valid as both a DynamoDB table and an SQS queue name.
var stagePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,19}$`)

var httpMethods = map[string]bool{
	"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true, "OPTIONS": true, "ANY": true,
}

var routeAuths = map[blueprint.Auth]bool{
	blueprint.AuthSigned: true, blueprint.AuthOperator: true, blueprint.AuthApprover: true, blueprint.AuthAdmin: true,
	blueprint.AuthServiceToken: true,
}

// IdentityWarningID acknowledges the warning about a missing JWT issuer
// (Annotations.Of(stack).AcknowledgeWarning), for a stage without authenticated users.
const IdentityWarningID = "@syncassist/stack:jwtIssuerMissing"

// validate reports blueprint mistakes as CDK error annotations rather than panics: the CDK
// CLI then lists every mistake with its construct path and refuses to synthesize, and the
// constructs skip what they cannot build so one mistake does not hide the next.
func validate(scope constructs.Construct, stage string, tables []blueprint.Table, queues []blueprint.Queue, fns []blueprint.Function) {
	fail := func(format string, args ...any) {
		awscdk.Annotations_Of(scope).AddError(jsii.String(fmt.Sprintf(format, args...)))
	}
	if !stagePattern.MatchString(stage) {
		fail("stage %q: want lowercase letters, digits and '-', starting with a letter, at most 20 characters", stage)
	}

	tableNames := map[string]bool{}
	for _, t := range tables {
		if tableNames[t.Name] {
			fail("table %q is declared twice", t.Name)
		}
		tableNames[t.Name] = true
		if t.EnvVar == "" {
			fail("table %q has no EnvVar to pass its name to functions", t.Name)
		}
		// Its throttle alarm sums two metrics for the table and two per index, and
		// CloudWatch takes at most 10 metrics in one alarm.
		if len(t.Indexes) > 4 {
			fail("table %q has %d indexes: its throttle alarm can watch at most 4", t.Name, len(t.Indexes))
		}
	}

	queueNames := map[string]bool{}
	for _, q := range queues {
		if queueNames[q.Name] {
			fail("queue %q is declared twice", q.Name)
		}
		queueNames[q.Name] = true
		checkWholeSeconds(fail, "queue "+q.Name+" visibility timeout", q.VisibilityTimeout)
		checkWholeSeconds(fail, "queue "+q.Name+" retention", q.Retention)
		if q.DeadLetter != nil && q.MaxReceiveCount < 1 {
			fail("queue %q has a dead-letter queue but MaxReceiveCount %d", q.Name, q.MaxReceiveCount)
		}
	}

	fnNames := map[string]bool{}
	for _, f := range fns {
		if fnNames[f.Name] {
			fail("function %q is declared twice", f.Name)
		}
		fnNames[f.Name] = true

		triggers := 0
		if f.Route != nil {
			triggers++
			if !httpMethods[f.Route.Method] {
				fail("function %q: route method %q is not an HTTP API method", f.Name, f.Route.Method)
			}
			if len(f.Route.Path) == 0 || f.Route.Path[0] != '/' {
				fail("function %q: route path %q must start with '/'", f.Name, f.Route.Path)
			}
			// API Gateway routes always match the whole path; it has no "{$}".
			if strings.Contains(f.Route.Path, "{$}") {
				fail("function %q: route path %q uses {$}, which API Gateway cannot express", f.Name, f.Route.Path)
			}
			// No Auth is allowed (a public route); a misspelt one would silently be one.
			if f.Route.Auth != "" && !routeAuths[f.Route.Auth] {
				fail("function %q: route auth %q is not one of %q, %q, %q, %q or %q", f.Name, f.Route.Auth,
					blueprint.AuthSigned, blueprint.AuthOperator, blueprint.AuthApprover, blueprint.AuthAdmin, blueprint.AuthServiceToken)
			}
		}
		if f.Queue != nil {
			triggers++
			if !queueNames[f.Queue.Name] {
				fail("function %q is triggered by undeclared queue %q", f.Name, f.Queue.Name)
			}
			// AWS rejects an SQS event source whose queue could redeliver a message
			// while the function still works on it.
			if f.Queue.VisibilityTimeout > 0 && f.Queue.VisibilityTimeout < f.Timeout {
				fail("function %q: queue %q visibility timeout %s is shorter than the function timeout %s",
					f.Name, f.Queue.Name, f.Queue.VisibilityTimeout, f.Timeout)
			}
			// Without a cap a backlog scales the function towards the account's concurrency
			// limit, retrying into the tenant's partitions; SQS takes 2 to 1,000.
			if f.MaxConcurrency < 2 || f.MaxConcurrency > 1000 {
				fail("function %q: maximum concurrency %d: a queue function needs one from 2 to 1000", f.Name, f.MaxConcurrency)
			}
		}
		if f.Schedule != 0 {
			triggers++
			// EventBridge rates count whole minutes.
			if f.Schedule < time.Minute || f.Schedule%time.Minute != 0 {
				fail("function %q: schedule %s is not a whole number of minutes", f.Name, f.Schedule)
			}
		}
		if triggers != 1 {
			fail("function %q has %d triggers; exactly one of Route, Queue or Schedule must be set", f.Name, triggers)
		}
		if f.Timeout <= 0 {
			fail("function %q has no timeout", f.Name)
		}
		checkWholeSeconds(fail, "function "+f.Name+" timeout", f.Timeout)
		if f.MemoryMB < 128 || f.MemoryMB > 10240 {
			fail("function %q: memory %d MB is outside 128..10240", f.Name, f.MemoryMB)
		}

		env := map[string]bool{envStage: true, envLogLevel: true}
		if f.InvokesAI {
			for _, name := range aiEnvNames {
				env[name] = true
			}
		}
		if verifiesJWT(f) {
			for _, name := range jwtEnvNames {
				env[name] = true
			}
		}
		claim := func(name, what string) {
			if env[name] {
				fail("function %q: environment variable %q is set twice (%s)", f.Name, name, what)
			}
			env[name] = true
		}
		for _, g := range f.Tables {
			if !tableNames[g.Table.Name] {
				fail("function %q is granted undeclared table %q", f.Name, g.Table.Name)
			}
			if !slices.Contains([]blueprint.Access{blueprint.Read, blueprint.ReadWrite, blueprint.Append, blueprint.KeysOnly, blueprint.SettingsOnly}, g.Access) {
				fail("function %q: unknown access %d on table %q", f.Name, g.Access, g.Table.Name)
			}
			if g.Access == blueprint.SettingsOnly && g.Table.Name != blueprint.TableTenants {
				fail("function %q: settings-only access on table %q, which has no settings", f.Name, g.Table.Name)
			}
			claim(g.Table.EnvVar, "table "+g.Table.Name)
		}
		for _, q := range f.SendsTo {
			if !queueNames[q.Name] {
				fail("function %q sends to undeclared queue %q", f.Name, q.Name)
			}
			claim(q.EnvVar, "queue "+q.Name)
		}
	}
}

// validateAI reports an AI configuration the functions marked InvokesAI could not run with.
func validateAI(scope constructs.Construct, ai AIProps) {
	fail := func(format string, args ...any) {
		awscdk.Annotations_Of(scope).AddError(jsii.String(fmt.Sprintf(format, args...)))
	}
	ai = ai.withDefaults()
	switch ai.Provider {
	case AIProviderRules:
	case AIProviderBedrock:
		if ai.Model == "" {
			fail("AI provider %q needs a model (-c aiModel=<model or inference profile id>); it is also the only model the functions may invoke", ai.Provider)
		}
		// A wildcard would widen the grant to models nobody chose.
		if strings.ContainsAny(ai.Model, "*?") {
			fail("AI model %q: wildcards are not allowed; name one model", ai.Model)
		}
	case AIProviderOpenAI:
		if ai.OpenAIBaseURL == "" {
			fail("AI provider %q needs a base URL (-c openaiBaseUrl=<url>)", ai.Provider)
		}
	default:
		fail("AI provider %q: want %q, %q or %q", ai.Provider, AIProviderRules, AIProviderBedrock, AIProviderOpenAI)
	}
}

// checkIdentity warns, without failing synthesis, when routes need a JWT issuer and none
// is configured: offline synthesis and the template tests must keep working without one.
func checkIdentity(scope constructs.Construct, id IdentityProps, fns []blueprint.Function) {
	if id.Issuer != "" {
		return
	}
	var names []string
	for _, f := range fns {
		if verifiesJWT(f) {
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	awscdk.Annotations_Of(scope).AddWarningV2(jsii.String(IdentityWarningID), jsii.String(fmt.Sprintf(
		"no JWT issuer is configured: authenticated routes (%s) will answer 503 until the stack is synthesized with -c jwtIssuer=<issuer URL>",
		strings.Join(names, ", "))))
}

func checkWholeSeconds(fail func(string, ...any), what string, d time.Duration) {
	if d%time.Second != 0 {
		fail("%s %s is not a whole number of seconds", what, d)
	}
}
