package templatetests

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/syncassist/syncassist/infra/stack"
	"github.com/syncassist/syncassist/shared/blueprint"
)

const (
	testModel   = "anthropic.claude-3-5-haiku-20241022-v1:0"
	testProfile = "us." + testModel
	testIssuer  = "https://login.example.com/"
)

var (
	// configuredStack sets every option a stage can set, so that one synthesis (seconds of
	// CPU each) serves the tests of all of them: it runs on Bedrock with one foundation
	// model, spells out every identity setting, allows cross-origin callers, tells the
	// console where to sign in, and traces. Each option's tests assert only what that
	// option adds, which the default stacks (dev, prod) lack.
	configuredStack = &lazyStack{spec: synthesized{
		name: "configured", stage: "prod",
		tables: blueprint.Tables, queues: blueprint.Queues, functions: blueprint.Functions,
		ai: stack.AIProps{Provider: "bedrock", Model: testModel},
		identity: stack.IdentityProps{
			Issuer:   testIssuer,
			Audience: "syncassist-test",
			JWKSURL:  "https://keys.example.com/jwks.json",
		},
		cors: []string{"https://erp.example.com", "http://127.0.0.1:5173"},
		console: stack.ConsoleProps{ClientID: "console-client", TokenEndpoint: "https://login.example.com/oauth2/token",
			FrameAncestors: []string{"https://1234567.app.erp.example.com"}},
		tracing: true,
	}}
	// profileStack runs on Bedrock through a cross-region inference profile and gives only
	// the issuer, leaving the other identity settings to their defaults.
	profileStack = &lazyStack{spec: synthesized{
		name: "profile", stage: "prod",
		tables: blueprint.Tables, queues: blueprint.Queues, functions: blueprint.Functions,
		ai:       stack.AIProps{Provider: "bedrock", Model: testProfile},
		identity: stack.IdentityProps{Issuer: testIssuer},
	}}
	openAIStack = &lazyStack{spec: synthesized{
		name: "openai", stage: "prod",
		tables: blueprint.Tables, queues: blueprint.Queues, functions: blueprint.Functions,
		ai: stack.AIProps{Provider: "openai", Model: "gpt-4o-mini", OpenAIBaseURL: "https://api.openai.example/v1",
			OpenAIKeySecretARN: testKeySecret},
	}}
)

// arnJoin is how CloudFormation spells an ARN built from the stack's partition, region and
// account tokens; parts name the pseudo parameters with the AWS:: prefix left off.
func arnJoin(parts ...any) obj {
	var out arr
	for _, p := range parts {
		switch p {
		case "Partition", "Region", "AccountId":
			out = append(out, ref("AWS::"+p.(string)))
		default:
			out = append(out, p)
		}
	}
	return obj{"Fn::Join": arr{"", out}}
}

// bedrockStatements returns the statements of a function's policies that allow any
// Bedrock action.
func (s *synthesized) bedrockStatements(t *testing.T, fnName string) []obj {
	t.Helper()
	var out []obj
	for _, st := range s.statements(t, fnName) {
		for _, a := range values(st["Action"]) {
			if a == "*" || strings.HasPrefix(a.(string), "bedrock:") {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// bedrockStatement returns a function's one Bedrock statement.
func (s *synthesized) bedrockStatement(t *testing.T, fnName string) obj {
	t.Helper()
	sts := s.bedrockStatements(t, fnName)
	if len(sts) != 1 {
		t.Fatalf("%s has %d Bedrock statements, want 1: %v", fnName, len(sts), sts)
	}
	return sts[0]
}

func (s *synthesized) templateJSON(t *testing.T) string {
	t.Helper()
	return s.rawTemplate
}

func TestRulesProviderGrantsNoBedrock(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		if strings.Contains(s.templateJSON(t), `"bedrock:`) {
			t.Fatal("the template grants a Bedrock action although the provider is rules")
		}
	})
}

func TestRulesIsTheDefaultProvider(t *testing.T) {
	s := devStack.get(t)
	s.hasFunction(t, blueprint.FuncDiagnose, obj{"Environment": obj{"Variables": obj{
		"AI_PROVIDER":     "rules",
		"AI_MODEL":        assertions.Match_Absent(),
		"OPENAI_BASE_URL": assertions.Match_Absent(),
	}}})
}

func TestBedrockEnvironment(t *testing.T) {
	s := configuredStack.get(t)
	s.hasFunction(t, blueprint.FuncDiagnose, obj{"Environment": obj{"Variables": obj{
		"AI_PROVIDER":     "bedrock",
		"AI_MODEL":        testModel,
		"OPENAI_BASE_URL": assertions.Match_Absent(),
	}}})
}

// Exactly the functions that invoke AI get a Bedrock statement, and one each.
func TestBedrockOnlyForAIFunctions(t *testing.T) {
	for _, l := range []*lazyStack{configuredStack, profileStack} {
		t.Run(l.spec.name, func(t *testing.T) {
			s := l.get(t)
			for _, f := range s.functions {
				t.Run(f.Name, func(t *testing.T) {
					want := 0
					if f.InvokesAI {
						want = 1
					}
					if got := s.bedrockStatements(t, f.Name); len(got) != want {
						t.Fatalf("%d Bedrock statements, want %d: %v", len(got), want, got)
					}
				})
			}
			// And no policy outside the functions' roles has one either.
			invokers := 0
			for _, f := range s.functions {
				if f.InvokesAI {
					invokers++
				}
			}
			if n := strings.Count(s.templateJSON(t), `"bedrock:`); n != invokers {
				t.Fatalf("the template names a Bedrock action %d times, want once per AI function (%d)", n, invokers)
			}
		})
	}
}

func TestBedrockActionIsInvokeModelOnly(t *testing.T) {
	for _, l := range []*lazyStack{configuredStack, profileStack} {
		t.Run(l.spec.name, func(t *testing.T) {
			s := l.get(t)
			st := s.bedrockStatement(t, blueprint.FuncDiagnose)
			if st["Effect"] != "Allow" || !reflect.DeepEqual(values(st["Action"]), []any{"bedrock:InvokeModel"}) {
				t.Errorf("statement %v: want Allow bedrock:InvokeModel only", st)
			}
			if strings.Contains(s.templateJSON(t), `"bedrock:*"`) {
				t.Error(`the template grants "bedrock:*"`)
			}
		})
	}
}

func TestBedrockResourceIsTheFoundationModel(t *testing.T) {
	s := configuredStack.get(t)
	want := []any{arnJoin("arn:", "Partition", ":bedrock:", "Region", "::foundation-model/"+testModel)}
	if got := values(s.bedrockStatement(t, blueprint.FuncDiagnose)["Resource"]); !reflect.DeepEqual(got, want) {
		t.Errorf("Resource %v, want %v", got, want)
	}
}

// An inference profile is authorized on the profile in the stack's region and on its
// foundation model wherever the profile routes the request.
func TestBedrockInferenceProfileResources(t *testing.T) {
	s := profileStack.get(t)
	want := []any{
		arnJoin("arn:", "Partition", ":bedrock:", "Region", ":", "AccountId", ":inference-profile/"+testProfile),
		arnJoin("arn:", "Partition", ":bedrock:*::foundation-model/"+testModel),
	}
	if got := values(s.bedrockStatement(t, blueprint.FuncDiagnose)["Resource"]); !reflect.DeepEqual(got, want) {
		t.Errorf("Resource %v, want %v", got, want)
	}
}

func TestOpenAIEnvironment(t *testing.T) {
	s := openAIStack.get(t)
	s.hasFunction(t, blueprint.FuncDiagnose, obj{"Environment": obj{"Variables": obj{
		"AI_PROVIDER":     "openai",
		"AI_MODEL":        "gpt-4o-mini",
		"OPENAI_BASE_URL": "https://api.openai.example/v1",
		// The key comes from a secret at run time, never from the template.
		"OPENAI_API_KEY": assertions.Match_Absent(),
	}}})
	if strings.Contains(s.templateJSON(t), `"bedrock:`) {
		t.Fatal("the template grants a Bedrock action although the provider is openai")
	}
}

// An AI setting the functions could not run with stops synthesis, as a blueprint mistake does.
func TestAIConfigMistakesAreReported(t *testing.T) {
	for _, tc := range []struct {
		name string
		ai   stack.AIProps
		want string
	}{
		{"bedrock-without-model", stack.AIProps{Provider: "bedrock"}, `AI provider "bedrock" needs a model`},
		{"unknown-provider", stack.AIProps{Provider: "oracle"}, `AI provider "oracle": want "rules", "bedrock" or "openai"`},
		{"openai-without-url", stack.AIProps{Provider: "openai", Model: "gpt-4o-mini"}, `AI provider "openai" needs a base URL`},
		{"wildcard-model", stack.AIProps{Provider: "bedrock", Model: "anthropic.*"}, `AI model "anthropic.*": wildcards are not allowed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Only the functions that invoke AI, the ones an AI setting changes: a third of
			// the synthesis a whole blueprint costs.
			s, err := synth(synthesized{
				name: "invalid-ai-" + tc.name, stage: "prod",
				tables: blueprint.Tables, queues: blueprint.Queues, functions: aiFunctions(),
				ai: tc.ai,
			})
			if err != nil {
				t.Fatal(err)
			}
			s.hasMessage(t, "error", regexp.MustCompile(regexp.QuoteMeta(tc.want)))
			if strings.Contains(s.templateJSON(t), `"bedrock:`) {
				t.Error("an invalid AI setting still granted a Bedrock action")
			}
		})
	}
}

// aiFunctions are the blueprint's functions that invoke AI.
func aiFunctions() []blueprint.Function {
	var out []blueprint.Function
	for _, f := range blueprint.Functions {
		if f.InvokesAI {
			out = append(out, f)
		}
	}
	return out
}

const testKeySecret = "arn:aws:secretsmanager:eu-central-1:123456789012:secret:syncassist/openai-key-AbCdEf"

// With the OpenAI-compatible provider, exactly the AI functions may read the API key's
// secret, and the key itself is nowhere in the template.
func TestOpenAIKeyComesFromItsSecret(t *testing.T) {
	s := openAIStack.get(t)
	for _, f := range s.functions {
		readsKey := false
		for _, st := range s.statements(t, f.Name) {
			for _, a := range values(st["Action"]) {
				if a != "secretsmanager:GetSecretValue" {
					continue
				}
				for _, r := range values(st["Resource"]) {
					switch {
					case r == testKeySecret:
						readsKey = true
					case !isAuditPseudonymSecret(r):
						t.Errorf("function %s may read secret %v, want only %s and the audit pseudonym key", f.Name, r, testKeySecret)
					}
				}
			}
		}
		if readsKey != f.InvokesAI {
			t.Errorf("function %s reads the OpenAI key: %v, want %v", f.Name, readsKey, f.InvokesAI)
		}
	}
	if strings.Contains(s.templateJSON(t), "OPENAI_API_KEY\"") {
		t.Fatal("the template sets OPENAI_API_KEY itself")
	}
}
