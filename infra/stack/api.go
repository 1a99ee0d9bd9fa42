package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// APIProps configures NewAPI.
type APIProps struct {
	Stage string
	// Functions are scanned for routes; the others are ignored.
	Functions []blueprint.Function
	Lambdas   *Functions
	// CORSOrigins get CORS answers from the API itself (preflights never reach a function).
	CORSOrigins []string
}

// API is the service's single HTTP API.
type API struct {
	constructs.Construct
	HttpApi awsapigatewayv2.HttpApi
}

// NewAPI creates the HTTP API with one route per routed function, each to its own Lambda
// with payload format 2.0 (what httpadapter.NewV2 reads).
//
// The gateway invokes the functions with one role of its own (the integrations' credentials)
// rather than a resource policy on each function: that is the same authority, and it keeps
// one AWS::Lambda::Permission per routed function out of a stack that CloudFormation caps at
// 500 resources.
func NewAPI(scope constructs.Construct, id string, props *APIProps) *API {
	c := &API{Construct: constructs.NewConstruct(scope, jsii.String(id))}
	c.HttpApi = awsapigatewayv2.NewHttpApi(c.Construct, jsii.String("HttpApi"), &awsapigatewayv2.HttpApiProps{
		ApiName:       jsii.String(blueprint.PhysicalName(props.Stage, "syncassist")),
		Description:   jsii.String("SyncAssist HTTP API (" + props.Stage + ")"),
		CorsPreflight: corsPreflight(props.CORSOrigins),
	})
	c.guardDefaultStage(props)
	invoker := awsiam.NewRole(c.Construct, jsii.String("Invoker"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
		Description: jsii.String("Lets the HTTP API invoke the functions behind its routes"),
	})
	var invoked []*string
	for _, f := range props.Functions {
		fn := props.Lambdas.Function(f.Name)
		if f.Route == nil || fn == nil || !httpMethods[f.Route.Method] {
			continue // an unknown method is reported by validate; jsii would only panic
		}
		invoked = append(invoked, fn.FunctionArn())
		integration := awsapigatewayv2.NewCfnIntegration(c.Construct, jsii.String(constructID(f.Name)+"Integration"),
			&awsapigatewayv2.CfnIntegrationProps{
				ApiId:                c.HttpApi.ApiId(),
				IntegrationType:      jsii.String("AWS_PROXY"),
				IntegrationUri:       fn.FunctionArn(),
				PayloadFormatVersion: jsii.String("2.0"),
				CredentialsArn:       invoker.RoleArn(),
			})
		for _, path := range f.Route.GatewayPaths() {
			key := f.Route.Method + " " + path
			route := awsapigatewayv2.NewCfnRoute(c.Construct, jsii.String(constructID(f.Name)+"Route"+constructID(path)),
				&awsapigatewayv2.CfnRouteProps{
					ApiId:             c.HttpApi.ApiId(),
					RouteKey:          jsii.String(key),
					AuthorizationType: jsii.String("NONE"),
					Target:            jsii.String("integrations/" + *integration.Ref()),
				})
			// A kind of route without a reason keeps its finding, so it must be given one.
			if reason, ok := routeAuthReason[f.Route.Auth]; ok {
				suppress(route, "APIG4", reason)
			}
		}
		if f.Name == blueprint.UnroutedFunction {
			c.defaultRoute(f.Name, integration)
		}
	}
	if len(invoked) > 0 {
		invoker.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("lambda:InvokeFunction"),
			Resources: &invoked,
		}))
	}
	return c
}

// defaultRoute sends what no route matches to the integration: without it API Gateway
// answers an unknown method on a known path 404 {"message":"Not Found"}, where the local
// stack answers 405 with Allow (issue 36 §3). Specific routes win over $default, and every
// GET has its route (the console's greedy one), so only other methods and unknown paths
// arrive. It takes no authorizer: API Gateway answers CORS preflights itself, and a
// $default route with an authorizer would catch them ("The $default route catches
// requests for all methods and routes that you haven't explicitly defined, including
// OPTIONS requests", https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html).
func (c *API) defaultRoute(name string, integration awsapigatewayv2.CfnIntegration) {
	route := awsapigatewayv2.NewCfnRoute(c.Construct, jsii.String(constructID(name)+"RouteDefault"),
		&awsapigatewayv2.CfnRouteProps{
			ApiId:             c.HttpApi.ApiId(),
			RouteKey:          jsii.String("$default"),
			AuthorizationType: jsii.String("NONE"),
			Target:            jsii.String("integrations/" + *integration.Ref()),
		})
	suppress(route, "APIG4", "Answers only what no route serves: 405 with Allow or 404 as problem+json "+
		"(and the public OpenAPI document), holding no tenant data; every route that does authenticates in its function")
}

// routeAuthReason says, per kind of route, why API Gateway does not authorize it (cdk-nag
// AwsSolutions-APIG4): every route authenticates in its function, with credentials no
// gateway authorizer can check, and answers failures as problem+json like the local stack.
var routeAuthReason = map[blueprint.Auth]string{
	blueprint.AuthPublic: "Public by design: the console's static assets and the OpenAPI document hold no " +
		"tenant data; the console signs in afterwards (OpenID Connect with PKCE) and calls authenticated routes",
	blueprint.AuthSigned: "The host ERP signs the raw body (Standard Webhooks, a secret per tenant and purpose); " +
		"no gateway authorizer can verify a body signature, so the function verifies it before reading anything",
	blueprint.AuthOperator: "The function verifies the bearer JWT itself (issuer, audience, expiry, JWKS signature) " +
		"or an embedded session, which a gateway JWT authorizer cannot accept, and answers 401/403 as problem+json",
	blueprint.AuthApprover: "The function verifies the bearer JWT itself (issuer, audience, expiry, JWKS signature, " +
		"approver role) or an embedded session, which a gateway JWT authorizer cannot accept",
	blueprint.AuthAdmin: "The function verifies the bearer JWT itself (issuer, audience, expiry, JWKS signature, " +
		"admin role) or an embedded session with the admin role in the route's own module, which a gateway JWT authorizer " +
		"cannot accept, answering 401/403 as problem+json like the local stack",
	blueprint.AuthServiceToken: "The embedded sidecar's service token is opaque and looked up in the sessions table " +
		"by the function; no gateway authorizer type can verify it",
}

// Default throttling of every route: a runaway host ERP script or a scraping dashboard is
// slowed at the edge instead of exhausting the functions' concurrency.
const (
	DefaultThrottleRate  = 100
	DefaultThrottleBurst = 200
)

// accessLogFormat is one JSON line per request; the request id ties it to the function's
// logs (the handlers log it as requestId).
const accessLogFormat = `{"requestId":"$context.requestId","ip":"$context.identity.sourceIp",` +
	`"time":"$context.requestTime","method":"$context.httpMethod","route":"$context.routeKey",` +
	`"status":"$context.status","latencyMs":"$context.responseLatency","integrationError":"$context.integrationErrorMessage"}`

// guardDefaultStage gives the API's default stage access logs and route throttling, through
// the L1 stage: the L2 HTTP API does not expose either for its default stage.
func (c *API) guardDefaultStage(props *APIProps) {
	stage := c.HttpApi.DefaultStage()
	if stage == nil {
		return
	}
	cfn, ok := stage.Node().DefaultChild().(awsapigatewayv2.CfnStage)
	if !ok {
		return
	}
	removal := awscdk.RemovalPolicy_RETAIN
	if props.Stage == DefaultStage {
		removal = awscdk.RemovalPolicy_DESTROY
	}
	logs := awslogs.NewLogGroup(c.Construct, jsii.String("AccessLogs"), &awslogs.LogGroupProps{
		Retention:     DefaultLogRetention,
		RemovalPolicy: removal,
	})
	cfn.SetAccessLogSettings(&awsapigatewayv2.CfnStage_AccessLogSettingsProperty{
		DestinationArn: logs.LogGroupArn(),
		Format:         jsii.String(accessLogFormat),
	})
	cfn.SetDefaultRouteSettings(&awsapigatewayv2.CfnStage_RouteSettingsProperty{
		ThrottlingRateLimit:  jsii.Number(DefaultThrottleRate),
		ThrottlingBurstLimit: jsii.Number(DefaultThrottleBurst),
	})
}

// corsPreflight is the HTTP API's CORS configuration: every method a route is served
// with (httpapi.CORSAllowMethods: API Gateway keeps one list for all routes, where the
// local stack's httpapi.CORS answers each path's own), the same headers, no credentials
// (bearer tokens only). Same-origin needs none, so no origins means no configuration.
func corsPreflight(origins []string) *awsapigatewayv2.CorsPreflightOptions {
	if len(origins) == 0 {
		return nil
	}
	methods := make([]awsapigatewayv2.CorsHttpMethod, 0, len(httpapi.CORSAllowMethods)+1)
	for _, m := range append([]string{"OPTIONS"}, httpapi.CORSAllowMethods...) {
		methods = append(methods, awsapigatewayv2.CorsHttpMethod(m))
	}
	return &awsapigatewayv2.CorsPreflightOptions{
		AllowOrigins:     jsii.Strings(origins...),
		AllowMethods:     &methods,
		AllowHeaders:     jsii.Strings(httpapi.CORSAllowHeaders...),
		ExposeHeaders:    jsii.Strings(httpapi.CORSExposeHeaders...),
		AllowCredentials: jsii.Bool(false),
		MaxAge:           awscdk.Duration_Seconds(jsii.Number(httpapi.CORSMaxAgeSeconds)),
	}
}
