package templatetests

import (
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
		s.countIs(t, "AWS::ApiGatewayV2::Route", routes)
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
