package templatetests

import (
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

func TestOneHTTPAPI(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		s.countIs(t, "AWS::ApiGatewayV2::Api", 1)
		s.has(t, "AWS::ApiGatewayV2::Api", obj{"ProtocolType": "HTTP"})
		s.has(t, "AWS::ApiGatewayV2::Stage", obj{"StageName": "$default", "AutoDeploy": true})
	})
}

// Each route reaches its own function through a Lambda proxy integration with payload 2.0;
// a function whose ServeMux path ends in "{rest...}" has two API Gateway routes (the
// prefix and "{rest+}") to its one integration.
func TestRoutePerHTTPFunction(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		routes := 0
		for _, f := range s.httpFunctions() {
			routes += len(f.Route.GatewayPaths())
		}
		s.countIs(t, "AWS::ApiGatewayV2::Route", routes+1) // and $default (TestUnroutedRequestsReachTheFallback)
		s.countIs(t, "AWS::ApiGatewayV2::Integration", len(s.httpFunctions()))
		for _, f := range s.httpFunctions() {
			for _, path := range f.Route.GatewayPaths() {
				t.Run(f.Name+" "+path, func(t *testing.T) {
					integration := assertions.NewCapture(nil)
					s.has(t, "AWS::ApiGatewayV2::Route", obj{
						"RouteKey": f.Route.Method + " " + path,
						"Target":   obj{"Fn::Join": arr{"", arr{"integrations/", obj{"Ref": integration}}}},
					})
					got := s.resources(t, "AWS::ApiGatewayV2::Integration", obj{"Properties": obj{
						"IntegrationType":      "AWS_PROXY",
						"PayloadFormatVersion": "2.0",
						"IntegrationUri":       getAtt(s.functionID(t, f.Name), "Arn"),
					}})
					if _, ok := got[*integration.AsString()]; !ok {
						t.Fatalf("route %q targets integration %s, which is not a payload 2.0 proxy to %s",
							f.Route.Pattern(), *integration.AsString(), f.Name)
					}
				})
			}
		}
	})
}

// The webhook URL the host ERP is configured with must not move.
func TestIngestRoute(t *testing.T) {
	s := devStack.get(t)
	s.has(t, "AWS::ApiGatewayV2::Route", obj{"RouteKey": "POST /api/sync-error-assist/ingest"})
	if got := blueprint.IngestRoute.Pattern(); got != "POST /api/sync-error-assist/ingest" {
		t.Fatalf("blueprint ingest route = %q", got)
	}
}

func TestAPIURLOutput(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		api := s.resourceID(t, "AWS::ApiGatewayV2::Api", obj{})
		check(t, func() {
			s.template.HasOutput(jsii.String("ApiUrl"), obj{
				"Value": obj{"Fn::Join": arr{"", assertions.Match_ArrayWith(&arr{ref(api)})}},
			})
		})
	})
}

// The API invokes its functions with a role of its own, passed as every integration's
// credentials, which may invoke exactly the routed functions; no function carries a
// resource policy for API Gateway (that would be one resource per route against the
// 500-resource cap, and a second way in to keep in step).
func TestAPIInvokesOnlyItsRoutedFunctions(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		invoker := s.resourceID(t, "AWS::IAM::Role", obj{"Properties": obj{
			"AssumeRolePolicyDocument": obj{"Statement": arr{obj{
				"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": obj{"Service": "apigateway.amazonaws.com"}}}},
		}})
		for id, integ := range s.resources(t, "AWS::ApiGatewayV2::Integration", nil) {
			if got := integ["Properties"].(obj)["CredentialsArn"]; !reflect.DeepEqual(got, getAtt(invoker, "Arn")) {
				t.Errorf("integration %s has credentials %v, want the invoker role", id, got)
			}
		}
		var want, got []string
		for _, f := range s.httpFunctions() {
			want = append(want, s.functionID(t, f.Name))
		}
		for _, p := range s.resources(t, "AWS::IAM::Policy", obj{"Properties": obj{"Roles": arr{ref(invoker)}}}) {
			for _, st := range p["Properties"].(obj)["PolicyDocument"].(obj)["Statement"].(arr) {
				st := st.(obj)
				if st["Action"] != "lambda:InvokeFunction" {
					t.Errorf("the invoker may %v", st["Action"])
				}
				for _, r := range values(st["Resource"]) {
					att, _ := r.(obj)["Fn::GetAtt"].(arr)
					if len(att) != 2 || att[1] != "Arn" {
						t.Errorf("the invoker may invoke %v, not a function's ARN", r)
						continue
					}
					got = append(got, att[0].(string))
				}
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("the invoker may invoke %v, want the routed functions %v", got, want)
		}
		for id, p := range s.resources(t, "AWS::Lambda::Permission", nil) {
			if p["Properties"].(obj)["Principal"] == "apigateway.amazonaws.com" {
				t.Errorf("permission %s lets API Gateway invoke a function by resource policy", id)
			}
		}
	})
}
