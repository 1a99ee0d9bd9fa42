package templatetests

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// rateExpression writes an interval the way EventBridge does: in the largest whole unit.
func rateExpression(d time.Duration) string {
	n, unit := int(d/time.Minute), "minute"
	switch {
	case d%(24*time.Hour) == 0:
		n, unit = int(d/(24*time.Hour)), "day"
	case d%time.Hour == 0:
		n, unit = int(d/time.Hour), "hour"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("rate(%d %s)", n, unit)
}

// The spec's own words, not derived from the blueprint: the reconcile runs every 30 minutes.
func TestReconcileRunsEvery30Minutes(t *testing.T) {
	s := devStack.get(t)
	s.has(t, "AWS::Events::Rule", obj{
		"ScheduleExpression": "rate(30 minutes)",
		"State":              "ENABLED",
		"Targets":            arr{obj{"Arn": getAtt(s.functionID(t, blueprint.FuncReconcile), "Arn")}},
	})
}

func TestScheduledFunctionRules(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::Events::Rule", len(s.scheduledFunctions()))
		for _, f := range s.scheduledFunctions() {
			t.Run(f.Name, func(t *testing.T) {
				fn := s.functionID(t, f.Name)
				s.has(t, "AWS::Events::Rule", obj{
					"ScheduleExpression": rateExpression(f.Schedule),
					"Targets":            arr{obj{"Arn": getAtt(fn, "Arn")}},
				})
				s.has(t, "AWS::Lambda::Permission", obj{
					"Action":       "lambda:InvokeFunction",
					"FunctionName": getAtt(fn, "Arn"),
					"Principal":    "events.amazonaws.com",
					"SourceArn":    assertions.Match_AnyValue(),
				})
			})
		}
	})
}
