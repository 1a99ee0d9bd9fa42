package templatetests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/stack"
)

// nagFindings lists the unsuppressed findings of the AWS Solutions rules on a stack, as
// "<path>: <message>"; errors and warnings alike.
func nagFindings(st awscdk.Stack) []string {
	a := assertions.Annotations_FromStack(st)
	pattern := assertions.Match_StringLikeRegexp(jsii.String("^" + stack.RulePack + "-"))
	var out []string
	for _, found := range [][]string{messages(a.FindError(jsii.String("*"), pattern)), messages(a.FindWarning(jsii.String("*"), pattern))} {
		out = append(out, found...)
	}
	return out
}

// messages renders synthesis messages as "<path>: <message>". It reads them through JSON
// so as not to name their type, which the CDK marks deprecated (moved to another package).
func messages(list any) []string {
	raw, err := json.Marshal(list)
	if err != nil {
		return []string{err.Error()}
	}
	var ms []struct {
		ID    string `json:"id"`
		Entry struct {
			Data any `json:"data"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(raw, &ms); err != nil {
		return []string{err.Error()}
	}
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s: %v", m.ID, m.Entry.Data))
	}
	return out
}

// Every stack the tests build, whatever its configuration, passes the rules: a change that
// adds a finding fails here until it is fixed or suppressed with a reason.
func TestNoUnsuppressedRuleFindings(t *testing.T) {
	for _, l := range append(allStacks(), configuredStack, profileStack, openAIStack, corsStack, tracingStack) {
		t.Run(l.spec.name, func(t *testing.T) {
			for _, f := range nagFindings(l.get(t).stack) {
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
	found := strings.Join(nagFindings(st), "\n")
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
	for _, l := range append(allStacks(), profileStack, tracingStack) {
		t.Run(l.spec.name, func(t *testing.T) {
			s := l.get(t)
			tmpl := *s.template.ToJSON()
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
