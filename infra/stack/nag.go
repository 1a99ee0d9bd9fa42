package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// RulePack is the prefix of every finding of the rules CheckRules applies.
const RulePack = "AwsSolutions"

// CheckRules applies AWS's published rules (cdk-nag's AwsSolutionsChecks) to every stack
// under scope: each finding becomes an error or warning annotation on the resource, which
// fails `cdk synth` and the template tests. reports also writes cdk-nag's CSV report of
// every rule per stack into the cloud assembly, for an auditor.
//
// Suppression policy: a finding is fixed when it can be. When it cannot, it is suppressed
// on the one resource it concerns (never on the stack), for IAM wildcards only on the
// wildcard it names (appliesTo), and with the reason written beside it (suppress).
func CheckRules(scope constructs.IConstruct, reports bool) {
	awscdk.Aspects_Of(scope).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{
		Reports: jsii.Bool(reports),
	}), nil)
}

// suppress accepts finding rule (without the pack prefix, "IAM5") on resource for reason.
// appliesTo narrows the suppression to those findings of the rule (IAM4 and IAM5 name the
// policy or wildcard: "Resource::*"); none suppresses every finding of the rule there.
func suppress(resource constructs.IConstruct, rule, reason string, appliesTo ...string) {
	s := &cdknag.NagPackSuppression{Id: jsii.String(RulePack + "-" + rule), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		applies := make([]any, len(appliesTo))
		for i, a := range appliesTo {
			applies[i] = a
		}
		s.AppliesTo = &applies
	}
	cdknag.NagSuppressions_AddResourceSuppressions(resource, &[]*cdknag.NagPackSuppression{s}, jsii.Bool(false))
}
