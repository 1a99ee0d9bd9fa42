package templatetests

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/stack"
)

// The API's default stage writes one JSON access-log line per request to its own log group
// and throttles every route.
func TestAPIStageLogsAndThrottles(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		logGroup := assertions.NewCapture(nil)
		s.has(t, "AWS::ApiGatewayV2::Stage", obj{
			"StageName":  "$default",
			"AutoDeploy": true,
			"AccessLogSettings": obj{
				"DestinationArn": obj{"Fn::GetAtt": arr{logGroup, "Arn"}},
				"Format":         assertions.Match_StringLikeRegexp(jsii.String(`\$context\.requestId`)),
			},
			"DefaultRouteSettings": obj{
				"ThrottlingRateLimit":  num(stack.DefaultThrottleRate),
				"ThrottlingBurstLimit": num(stack.DefaultThrottleBurst),
			},
		})
		if _, ok := s.resources(t, "AWS::Logs::LogGroup", nil)[*logGroup.AsString()]; !ok {
			t.Fatalf("access logs go to %s, not a log group", *logGroup.AsString())
		}
	})
}
