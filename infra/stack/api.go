package stack

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// APIProps configures NewAPI.
type APIProps struct {
	Stage string
	// Functions are scanned for routes; the others are ignored.
	Functions []blueprint.Function
	Lambdas   *Functions
}

// API is the service's single HTTP API.
type API struct {
	constructs.Construct
	HttpApi awsapigatewayv2.HttpApi
}

// NewAPI creates the HTTP API with one route per routed function, each to its own Lambda
// with payload format 2.0 (what httpadapter.NewV2 reads).
func NewAPI(scope constructs.Construct, id string, props *APIProps) *API {
	c := &API{Construct: constructs.NewConstruct(scope, jsii.String(id))}
	c.HttpApi = awsapigatewayv2.NewHttpApi(c.Construct, jsii.String("HttpApi"), &awsapigatewayv2.HttpApiProps{
		ApiName:     jsii.String(blueprint.PhysicalName(props.Stage, "syncassist")),
		Description: jsii.String("SyncAssist HTTP API (" + props.Stage + ")"),
	})
	for _, f := range props.Functions {
		fn := props.Lambdas.Function(f.Name)
		if f.Route == nil || fn == nil || !httpMethods[f.Route.Method] {
			continue // an unknown method is reported by validate; jsii would only panic
		}
		integration := awsapigatewayv2integrations.NewHttpLambdaIntegration(
			jsii.String(constructID(f.Name)+"Integration"), fn,
			&awsapigatewayv2integrations.HttpLambdaIntegrationProps{
				PayloadFormatVersion: awsapigatewayv2.PayloadFormatVersion_VERSION_2_0(),
			})
		c.HttpApi.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
			Path:        jsii.String(apiGatewayPath(f.Route.Path)),
			Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod(f.Route.Method)},
			Integration: integration,
		})
	}
	return c
}

// apiGatewayPath writes a ServeMux path for API Gateway. "{id}" means the same to both; a
// ServeMux wildcard "{rest...}" is API Gateway's greedy "{rest+}".
func apiGatewayPath(path string) string {
	segments := strings.Split(path, "/")
	for i, seg := range segments {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "...}") {
			segments[i] = strings.TrimSuffix(seg, "...}") + "+}"
		}
	}
	return strings.Join(segments, "/")
}
