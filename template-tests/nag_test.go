package templatetests

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/stack"
)

// nagPattern is what the AWS Solutions rules' findings start with.
var nagPattern = regexp.MustCompile("^" + regexp.QuoteMeta(stack.RulePack) + "-")

// nagFindings lists the unsuppressed findings of the AWS Solutions rules among a stack's
// synthesis messages, as "<path>: <message>"; errors and warnings alike.
func nagFindings(ms []synthMessage) []string {
	var out []string
	for _, level := range []string{"error", "warning"} {
		for _, m := range findMessages(ms, level, nagPattern) {
			out = append(out, m.String())
		}
	}
	return out
}

// Every stack the tests build, whatever its configuration, passes the rules: a change that
// adds a finding fails here until it is fixed or suppressed with a reason.
func TestNoUnsuppressedRuleFindings(t *testing.T) {
	for _, l := range append(allStacks(), configuredStack, profileStack, openAIStack) {
		t.Run(l.spec.name, func(t *testing.T) {
			for _, f := range nagFindings(l.get(t).messages) {
				t.Error(f)
			}
		})
	}
}

// The check above can fail: the same rules find a queue that allows plain HTTP.
func TestRuleCheckReportsAFinding(t *testing.T) {
	app := awscdk.NewApp(nil)
	st := awscdk.NewStack(app, jsii.String("Careless"), nil)
	awssqs.NewQueue(st, jsii.String("Plain"), &awssqs.QueueProps{Encryption: awssqs.QueueEncryption_SQS_MANAGED})
	stack.CheckRules(app, false)
	ms, err := stackMessages(st)
	if err != nil {
		t.Fatal(err)
	}
	found := strings.Join(nagFindings(ms), "\n")
	if !strings.Contains(found, "AwsSolutions-SQS4") {
		t.Fatalf("no AwsSolutions-SQS4 finding on a queue without enforceSSL; findings:\n%s", found)
	}
}

// Suppressions stay narrow and known: none on the stack, APIG4 only on routes, IAM5 only on
// a role's policy and only for the wildcards it names, SMG4 (rotation) only on the audit
// pseudonym key, each with a reason.
func TestRuleSuppressionsAreNarrow(t *testing.T) {
	allowed := map[string]string{"AwsSolutions-APIG4": "AWS::ApiGatewayV2::Route", "AwsSolutions-IAM5": "AWS::IAM::Policy",
		"AwsSolutions-SMG4": "AWS::SecretsManager::Secret"}
	for _, l := range append(allStacks(), configuredStack, profileStack) {
		t.Run(l.spec.name, func(t *testing.T) {
			s := l.get(t)
			tmpl := s.templateDoc
			if md, ok := tmpl["Metadata"].(obj); ok && md["cdk_nag"] != nil {
				t.Errorf("stack-wide suppressions: %v", md["cdk_nag"])
			}
			for id, r := range tmpl["Resources"].(obj) {
				res := r.(obj)
				md, _ := res["Metadata"].(obj)
				nag, _ := md["cdk_nag"].(obj)
				rules, _ := nag["rules_to_suppress"].(arr)
				for _, rule := range rules {
					rule := rule.(obj)
					ruleID, _ := rule["id"].(string)
					if allowed[ruleID] != res["Type"] {
						t.Errorf("%s (%s) suppresses %s", id, res["Type"], ruleID)
					}
					if reason, _ := rule["reason"].(string); len(reason) < 40 {
						t.Errorf("%s suppresses %s with too short a reason: %q", id, ruleID, reason)
					}
					if applies, _ := rule["applies_to"].(arr); ruleID == "AwsSolutions-IAM5" && len(applies) == 0 {
						t.Errorf("%s suppresses every IAM5 wildcard, not the ones it names", id)
					}
				}
			}
		})
	}
}
