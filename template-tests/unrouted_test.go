package templatetests

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/blueprint"
)

// What no route matches reaches the function that answers it as the local stack does
// (unrouted.Handler: 405 with Allow on a routed path, 404 problem+json elsewhere; before,
// API Gateway's own 404 {"message":"Not Found"}), through the API's $default route, with
// no authorizer (one would catch CORS preflights), and the API's CORS configuration, which
// answers preflights, is as before (TestCORSPreflightForAllowedOrigins).
func TestUnroutedRequestsReachTheFallback(t *testing.T) {
	for _, l := range append(allStacks(), configuredStack) {
		t.Run(l.spec.name, func(t *testing.T) {
			s := l.get(t)
			integration := assertions.NewCapture(nil)
			s.has(t, "AWS::ApiGatewayV2::Route", obj{
				"RouteKey":          "$default",
				"AuthorizationType": "NONE",
				"Target":            obj{"Fn::Join": arr{"", arr{"integrations/", obj{"Ref": integration}}}},
			})
			fn := getAtt(s.functionID(t, blueprint.UnroutedFunction), "Arn")
			got := s.resources(t, "AWS::ApiGatewayV2::Integration", obj{"Properties": obj{"IntegrationUri": fn}})
			if _, ok := got[*integration.AsString()]; !ok {
				t.Fatalf("$default targets %s, not the %s function", *integration.AsString(), blueprint.UnroutedFunction)
			}
		})
	}
}

// Every documented path has its 405 route: $default, which every method a path is not
// documented with reaches, because every documented operation is a route of its own (one
// $default took would answer 405 where the document promises the operation), GET by the
// console's greedy route where the path has none.
func TestEveryDocumentedOperationIsRouted(t *testing.T) {
	s := devStack.get(t)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(apidoc.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	type key struct {
		method string
		path   *regexp.Regexp
	}
	var keys []key
	for _, r := range s.resources(t, "AWS::ApiGatewayV2::Route", nil) {
		method, path, ok := strings.Cut(r["Properties"].(obj)["RouteKey"].(string), " ")
		if !ok {
			continue // $default
		}
		pattern := regexp.QuoteMeta(param.ReplaceAllStringFunc(path, func(p string) string {
			if strings.HasSuffix(p, "+}") {
				return "\x01"
			}
			return "\x00"
		}))
		pattern = strings.NewReplacer("\x00", "[^/]+", "\x01", ".+").Replace(pattern)
		keys = append(keys, key{method, regexp.MustCompile("^" + pattern + "$")})
	}
	for path, item := range doc.Paths {
		concrete := param.ReplaceAllString(path, "p1")
		for method := range item {
			method = strings.ToUpper(method)
			if !strings.Contains("GET POST PUT PATCH DELETE", method) {
				continue // parameters, summary
			}
			routed := false
			for _, k := range keys {
				routed = routed || k.method == method && k.path.MatchString(concrete)
			}
			if !routed {
				t.Errorf("%s %s is documented but no route of the API serves it: $default would answer 405", method, path)
			}
		}
	}
}
