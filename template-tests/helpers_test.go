package templatetests

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/stack"
	"github.com/syncassist/syncassist/shared/blueprint"
)

type (
	obj = map[string]any
	arr = []any
)

// functionsRoot holds a dummy "<name>/bootstrap" per function for every synthesized stack.
// It lives for the whole run, not one test, because each template is synthesized once and
// shared by every test that reads it.
var functionsRoot string

func TestMain(m *testing.M) {
	// Node's end-of-life banner cannot be silenced from here: jsii starts node while the
	// CDK packages initialize, before TestMain runs, so os.Setenv of
	// JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION would come too late. Export it in the
	// environment (for example in the Makefile's test target); go test shows the banner
	// only with -v or on failure anyway.
	dir, err := os.MkdirTemp("", "syncassist-template-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	functionsRoot = dir
	code := m.Run()
	if !raceDetector {
		jsii.Close()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// synthesized is one synthesized stack together with the blueprint it was built from, so
// that assertions compare the template against the very values that produced it.
type synthesized struct {
	name      string
	stage     string
	tables    []blueprint.Table
	queues    []blueprint.Queue
	functions []blueprint.Function
	email     string
	ai        stack.AIProps
	identity  stack.IdentityProps
	console   stack.ConsoleProps
	cors      []string
	tracing   bool

	stack    awscdk.Stack
	template assertions.Template
	oncall   assertions.Template
	// withProperties is template with an empty Properties on each resource that has none,
	// made once (on first use) for has.
	withProperties *lazyTemplate
	// The templates as Go values and the synthesis messages, read once from the cloud
	// assembly: a ToJSON crosses jsii with the whole template, and assertions'
	// Annotations_FromStack synthesizes the whole app again (force) on every call.
	templateDoc obj
	oncallDoc   obj
	rawTemplate string
	messages    []synthMessage
}

// lazyStack synthesizes on first use: a synthesis costs seconds, an assertion milliseconds.
type lazyStack struct {
	once  sync.Once
	spec  synthesized
	built *synthesized
	err   error
}

func (l *lazyStack) get(t *testing.T) *synthesized {
	t.Helper()
	l.once.Do(func() { l.built, l.err = synth(l.spec) })
	if l.err != nil {
		t.Fatalf("synthesize %s: %v", l.spec.name, l.err)
	}
	return l.built
}

const testAlarmEmail = "ops@example.com"

var (
	devStack = &lazyStack{spec: synthesized{
		name: "dev", stage: "dev", email: testAlarmEmail,
		tables: blueprint.Tables, queues: blueprint.Queues, functions: blueprint.Functions,
	}}
	prodStack = &lazyStack{spec: synthesized{
		name: "prod", stage: "prod",
		tables: blueprint.Tables, queues: blueprint.Queues, functions: blueprint.Functions,
	}}
	// extendedStack adds tables, queues and functions of every kind to the blueprint, to
	// prove the stack follows the blueprint rather than knowing today's contents.
	extendedStack = &lazyStack{spec: extendedSpec()}
)

// allStacks is what every blueprint-driven assertion runs against.
func allStacks() []*lazyStack { return []*lazyStack{devStack, prodStack, extendedStack} }

// forEachStack runs body as a subtest per synthesized stack.
func forEachStack(t *testing.T, body func(t *testing.T, s *synthesized)) {
	t.Helper()
	for _, l := range allStacks() {
		t.Run(l.spec.name, func(t *testing.T) { body(t, l.get(t)) })
	}
}

func synth(spec synthesized) (s *synthesized, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	dir := filepath.Join(functionsRoot, spec.name)
	for _, f := range spec.functions {
		if err := os.MkdirAll(filepath.Join(dir, f.Name), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name, "bootstrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			return nil, err
		}
	}
	// The feature flags in cdk.json change the template; synthesizing with them makes the
	// tests check what `cdk deploy` deploys.
	context, err := stack.ContextFromFile("../cdk.json")
	if err != nil {
		return nil, err
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &context})
	stack.CheckRules(app, false)
	out := spec
	out.stack = stack.NewService(app, "SyncAssist-"+spec.stage, &stack.ServiceProps{
		Stage:        spec.stage,
		FunctionsDir: dir,
		AlarmEmail:   spec.email,
		Tables:       spec.tables,
		Queues:       spec.queues,
		Functions:    spec.functions,
		AI:           spec.ai,
		Identity:     spec.identity,
		Console:      spec.console,
		CORSOrigins:  spec.cors,
		Tracing:      spec.tracing,
	})
	// Synthesized once: Template_FromStack reuses the app's assembly, and the templates and
	// messages are read from that same assembly.
	asmDir := *app.Synth(nil).Directory()
	out.template = assertions.Template_FromStack(out.stack, nil)
	// The burn-rate alarms, the page topic and the saved queries: a nested stack.
	oncall := awscdk.Stack_Of(out.stack.Node().FindChild(jsii.String("Alarms")).Node().FindChild(jsii.String("OnCall")))
	out.oncall = assertions.Template_FromStack(oncall, nil)
	var text []byte
	if out.templateDoc, text, err = readTemplate(asmDir, out.stack); err != nil {
		return nil, err
	}
	if out.oncallDoc, _, err = readTemplate(asmDir, oncall); err != nil {
		return nil, err
	}
	// Compact, as json.Marshal of ToJSON was, for the tests that search the text.
	raw, err := json.Marshal(out.templateDoc)
	if err != nil {
		return nil, err
	}
	out.rawTemplate = string(raw)
	out.withProperties = &lazyTemplate{text: text, doc: out.templateDoc}
	out.messages, err = stackMessages(out.stack)
	return &out, err
}

// readTemplate reads a stack's template from the cloud assembly in dir, as
// Template_FromStack does for a nested stack, as a Go value and as text.
func readTemplate(dir string, st awscdk.Stack) (obj, []byte, error) {
	raw, err := os.ReadFile(filepath.Join(dir, *st.TemplateFile()))
	if err != nil {
		return nil, nil, err
	}
	var doc obj
	return doc, raw, json.Unmarshal(raw, &doc)
}

// check runs CDK assertions, which panic on mismatch, and turns a panic into a test failure
// carrying the assertion's explanation.
func check(t *testing.T, assertion func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%v", r)
		}
	}()
	assertion()
}

func num(n int) float64 { return float64(n) }

func ref(id string) obj { return obj{"Ref": id} }

func getAtt(id, attr string) obj { return obj{"Fn::GetAtt": arr{id, attr}} }

// resourceID finds the logical id of the one resource of a type matching props.
func (s *synthesized) resourceID(t *testing.T, typ string, props obj) string {
	t.Helper()
	var id string
	check(t, func() { id = *s.template.GetResourceId(jsii.String(typ), props) })
	return id
}

// resources returns the resources of a type matching props (nil props: all), by logical id.
// All of a type are read from the template held in Go: through jsii, each call would carry
// them across to Node and back, which the tests do per function and cost seconds of CPU.
func (s *synthesized) resources(t *testing.T, typ string, props any) map[string]obj {
	t.Helper()
	out := map[string]obj{}
	if props == nil {
		all, _ := s.templateDoc["Resources"].(obj)
		for id, r := range all {
			if r, _ := r.(obj); r["Type"] == typ {
				out[id] = r
			}
		}
		return out
	}
	check(t, func() {
		for id, r := range *s.template.FindResources(jsii.String(typ), props) {
			out[id] = *r
		}
	})
	return out
}

func (s *synthesized) tableID(t *testing.T, name string) string {
	t.Helper()
	return s.namedID(t, "AWS::DynamoDB::Table", "TableName", blueprint.PhysicalName(s.stage, name))
}

func (s *synthesized) queueID(t *testing.T, name string) string {
	t.Helper()
	return s.namedID(t, "AWS::SQS::Queue", "QueueName", blueprint.PhysicalName(s.stage, name))
}

// namedID finds the one resource of a type whose property prop is name (in Go, as
// resources does).
func (s *synthesized) namedID(t *testing.T, typ, prop, name string) string {
	t.Helper()
	var ids []string
	for id, r := range s.resources(t, typ, nil) {
		if props, _ := r["Properties"].(obj); props[prop] == name {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%d resources %s with %s %q, want 1: %v", len(ids), typ, prop, name, ids)
	}
	return ids[0]
}

// functionID finds the one function with the tag the stack puts on each function's
// resources (in Go, as resources does, for the tests call it per function).
func (s *synthesized) functionID(t *testing.T, name string) string {
	t.Helper()
	var ids []string
	for id, fn := range s.resources(t, "AWS::Lambda::Function", nil) {
		props, _ := fn["Properties"].(obj)
		tags, _ := props["Tags"].(arr)
		if slices.ContainsFunc(tags, func(v any) bool {
			tag, _ := v.(obj)
			return tag["Key"] == stack.FunctionTag && tag["Value"] == name
		}) {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%d functions tagged %s=%s, want 1: %v", len(ids), stack.FunctionTag, name, ids)
	}
	return ids[0]
}

// logGroupID is the log group a function logs to.
func (s *synthesized) logGroupID(t *testing.T, name string) string {
	t.Helper()
	fn := s.resources(t, "AWS::Lambda::Function", nil)[s.functionID(t, name)]
	return fn["Properties"].(obj)["LoggingConfig"].(obj)["LogGroup"].(obj)["Ref"].(string)
}

// secretsKeyID is the KMS key that seals tenants' secrets (the alarm topic has its own).
func (s *synthesized) secretsKeyID(t *testing.T) string {
	t.Helper()
	return s.resourceID(t, "AWS::KMS::Key", obj{"Properties": obj{
		"Description": assertions.Match_StringLikeRegexp(jsii.String("^Seals tenants")),
	}})
}

// topicID is the ticket topic: every cause alarm and the slow burns notify it.
func (s *synthesized) topicID(t *testing.T) string {
	t.Helper()
	return s.resourceID(t, "AWS::SNS::Topic", obj{"Properties": obj{"DisplayName": "SyncAssist alarms (tickets)"}})
}

// oncallResources are the nested OnCall stack's resources of a type, by logical id.
func (s *synthesized) oncallResources(t *testing.T, typ string) map[string]obj {
	t.Helper()
	out := map[string]obj{}
	check(t, func() {
		for id, r := range *s.oncall.FindResources(jsii.String(typ), obj{}) {
			out[id] = *r
		}
	})
	return out
}

// configEnv is what the stack's AI and identity settings add to a function's environment:
// the provider for functions that invoke AI, the JWT issuer for operator and approver
// routes. The defaults are written out here rather than taken from package stack, so that
// changing one shows up as a failing test.
func (s *synthesized) configEnv(f blueprint.Function) obj {
	out := obj{}
	if f.InvokesAI {
		out["AI_PROVIDER"] = cmp.Or(s.ai.Provider, "rules")
		if s.ai.Model != "" {
			out["AI_MODEL"] = s.ai.Model
		}
		if s.ai.OpenAIBaseURL != "" {
			out["OPENAI_BASE_URL"] = s.ai.OpenAIBaseURL
		}
		if s.ai.Provider == "openai" && s.ai.OpenAIKeySecretARN != "" {
			out[stack.EnvOpenAIKeySecret] = s.ai.OpenAIKeySecretARN
		}
	}
	if f.NeedsSecrets() {
		// The key's ARN (GetAtt of the one KMS key).
		out[stack.SecretsKeyEnv] = assertions.Match_ObjectLike(&map[string]any{"Fn::GetAtt": assertions.Match_ArrayWith(
			&[]any{assertions.Match_StringLikeRegexp(jsii.String("^TenantSecretsKey")), "Arn"})})
	}
	if pseudonymisesActors(f) {
		// Ref of a secret is its ARN.
		out[stack.AuditPseudonymSecretEnv] = assertions.Match_ObjectLike(&map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^AuditPseudonymKey"))})
	}
	if f.PublishesAlerts {
		// Ref of an event bus is its name.
		out[stack.AlertBusEnv] = assertions.Match_ObjectLike(&map[string]any{"Ref": assertions.Match_StringLikeRegexp(jsii.String("^Alerts"))})
	}
	if f.Route != nil && f.Route.Auth.ByJWT() {
		out["JWT_AUDIENCE"] = cmp.Or(s.identity.Audience, "syncassist")
		if s.identity.Issuer != "" {
			out["JWT_ISSUER"] = s.identity.Issuer
			out["JWT_JWKS_URL"] = cmp.Or(s.identity.JWKSURL, strings.TrimSuffix(s.identity.Issuer, "/")+"/.well-known/jwks.json")
		} else if s.identity.JWKSURL != "" {
			out["JWT_JWKS_URL"] = s.identity.JWKSURL
		}
	}
	return out
}

// hasFunction asserts that the function tagged name has (at least) these properties.
func (s *synthesized) hasFunction(t *testing.T, name string, props obj) {
	t.Helper()
	props["Tags"] = assertions.Match_ArrayWith(&arr{obj{"Key": stack.FunctionTag, "Value": name}})
	s.has(t, "AWS::Lambda::Function", props)
}

func (s *synthesized) httpFunctions() []blueprint.Function {
	var out []blueprint.Function
	for _, f := range s.functions {
		if f.Route != nil {
			out = append(out, f)
		}
	}
	return out
}

func (s *synthesized) queueFunctions() []blueprint.Function {
	var out []blueprint.Function
	for _, f := range s.functions {
		if f.Queue != nil {
			out = append(out, f)
		}
	}
	return out
}

func (s *synthesized) scheduledFunctions() []blueprint.Function {
	var out []blueprint.Function
	for _, f := range s.functions {
		if f.Schedule > 0 {
			out = append(out, f)
		}
	}
	return out
}

// deadLetterQueues lists the queues some queue redrives to.
func (s *synthesized) deadLetterQueues() []blueprint.Queue {
	seen := map[string]bool{}
	var out []blueprint.Queue
	for _, q := range s.queues {
		if q.DeadLetter != nil && !seen[q.DeadLetter.Name] {
			seen[q.DeadLetter.Name] = true
			out = append(out, *q.DeadLetter)
		}
	}
	return out
}

// countIs asserts how many resources of a type the template holds.
func (s *synthesized) countIs(t *testing.T, typ string, n int) {
	t.Helper()
	check(t, func() { s.template.ResourceCountIs(jsii.String(typ), jsii.Number(num(n))) })
}
