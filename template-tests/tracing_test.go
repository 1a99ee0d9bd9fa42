package templatetests

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// Tracing is off unless a stage asks for it: no function traces, no role may write traces.
func TestTracingOffByDefault(t *testing.T) {
	for _, l := range allStacks() {
		t.Run(l.spec.name, func(t *testing.T) {
			s := l.get(t)
			check(t, func() {
				s.template.AllResourcesProperties(jsii.String("AWS::Lambda::Function"), obj{"TracingConfig": assertions.Match_Absent()})
			})
			if strings.Contains(s.templateJSON(t), `"xray:`) {
				t.Error("a role may write X-Ray traces although tracing is off")
			}
		})
	}
}

// With tracing on (the configured stack), every function traces actively and may write its traces.
func TestTracingOnWhenSet(t *testing.T) {
	s := configuredStack.get(t)
	for _, f := range s.functions {
		t.Run(f.Name, func(t *testing.T) {
			s.hasFunction(t, f.Name, obj{"TracingConfig": obj{"Mode": "Active"}})
			writes := false
			for _, st := range s.statements(t, f.Name) {
				var actions []string
				for _, a := range values(st["Action"]) {
					actions = append(actions, a.(string))
				}
				writes = writes || st["Effect"] == "Allow" && st["Resource"] == "*" && slices.Equal(actions, xrayWrites)
			}
			if !writes {
				t.Errorf("function %s may not write its traces (%v)", f.Name, xrayWrites)
			}
		})
	}
}
