// Command infra is the CDK app that cdk.json runs: it synthesizes the stack
// "SyncAssist-<stage>" from package stack.
//
// Context keys: stage (default "dev"), functionsDir (default "build/functions", the output
// of the function build), alarmEmail (optional) and runbookBaseUrl (the URL runbook paths
// in alarm descriptions start with; default the repository's main branch); for the
// functions that invoke AI,
// aiProvider ("rules", the default, "bedrock" or "openai"), aiModel (required for bedrock,
// and the only model they may invoke) and openaiBaseUrl (required for openai); for the
// operator and approver routes, jwtIssuer, jwtAudience (default "syncassist") and
// jwtJwksUrl (default <jwtIssuer>/.well-known/jwks.json) and jwtTokenTypes (default
// "at+jwt,application/at+jwt"); for the console's sign-in
// (OpenID Connect code flow with PKCE at jwtIssuer), consoleClientId,
// consoleAuthorizationEndpoint, consoleTokenEndpoint, consoleEndSessionEndpoint,
// consoleScope, consoleTokenType and consoleFrameAncestors; corsAllowedOrigins, the exact
// origins besides the API's own that browsers may call it from; tracing ("true" turns on
// X-Ray active tracing of every function, off by default); claimIndexProjections ("lean", the
// default, or "all" for a stage deployed before 2026-11-29, whose claim indexes DynamoDB
// cannot re-project in place). The CDK CLI passes them with -c;
// when run directly (`CDK_OUTDIR=cdk.out go run ./infra -c stage=prod`) the app reads
// cdk.json's context itself and accepts the same -c key=value flags, so both ways build
// one template.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/infra/stack"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	values, err := appContext(args)
	if err != nil {
		return err
	}

	defer jsii.Close()
	app := awscdk.NewApp(&awscdk.AppProps{Context: &values})

	stage := contextString(app, "stage", stack.DefaultStage)
	functionsDir := contextString(app, "functionsDir", stack.DefaultFunctionsDir)
	if err := stack.CheckFunctionsDir(functionsDir, blueprint.Functions); err != nil {
		return fmt.Errorf("build the functions first (make build) or pass -c functionsDir=<dir>:\n%w", err)
	}

	origins, err := httpapi.ParseOrigins(contextString(app, "corsAllowedOrigins", ""))
	if err != nil {
		return fmt.Errorf("-c corsAllowedOrigins: %w", err)
	}
	frames, err := stack.ParseFrameAncestors(contextString(app, "consoleFrameAncestors", ""))
	if err != nil {
		return fmt.Errorf("-c consoleFrameAncestors: %w", err)
	}
	tracing, err := stack.ParseFlag(app.Node().TryGetContext(jsii.String("tracing")))
	if err != nil {
		return fmt.Errorf("-c tracing: %w", err)
	}
	stack.NewService(app, "SyncAssist-"+stage, &stack.ServiceProps{
		StackProps:   awscdk.StackProps{Env: env()},
		Stage:        stage,
		FunctionsDir: functionsDir,
		AlarmEmail:   contextString(app, "alarmEmail", ""),
		RunbookBase:  contextString(app, "runbookBaseUrl", ""),
		AI: stack.AIProps{
			Provider:      contextString(app, "aiProvider", ""),
			Model:         contextString(app, "aiModel", ""),
			OpenAIBaseURL: contextString(app, "openaiBaseUrl", ""),
			// The complete ARN of the secret holding the API key (with its random suffix).
			OpenAIKeySecretARN: contextString(app, "openaiApiKeySecretArn", ""),
		},
		Identity: stack.IdentityProps{
			Issuer:   contextString(app, "jwtIssuer", ""),
			Audience: contextString(app, "jwtAudience", ""),
			JWKSURL:  contextString(app, "jwtJwksUrl", ""),
			// Comma-separated typ headers accepted (default at+jwt): "at+jwt,JWT" for an
			// issuer that types its access tokens JWT.
			TokenTypes: contextString(app, "jwtTokenTypes", ""),
		},
		Console: stack.ConsoleProps{
			ClientID:              contextString(app, "consoleClientId", ""),
			AuthorizationEndpoint: contextString(app, "consoleAuthorizationEndpoint", ""),
			TokenEndpoint:         contextString(app, "consoleTokenEndpoint", ""),
			EndSessionEndpoint:    contextString(app, "consoleEndSessionEndpoint", ""),
			Scope:                 contextString(app, "consoleScope", ""),
			TokenType:             contextString(app, "consoleTokenType", ""),
			FrameAncestors:        frames,
		},
		CORSOrigins: origins,
		Tracing:     tracing,
	})
	// AWS's published rules run on every synthesis: an unsuppressed error stops it, and
	// cdk.out gets the per-rule CSV report.
	stack.CheckRules(app, true)
	app.Synth(nil)
	return nil
}

// appContext is the context the app starts from. Under the CDK CLI it is only the -c flags
// (the CLI already merged cdk.json into CDK_CONTEXT_JSON, which overrides these); run
// directly, it is cdk.json's context with the flags on top.
func appContext(args []string) (map[string]any, error) {
	flags := flag.NewFlagSet("infra", flag.ContinueOnError)
	overrides := contextFlag{}
	flags.Var(overrides, "c", "context `key=value` (repeatable)")
	flags.Var(overrides, "context", "context `key=value` (repeatable)")
	if err := flags.Parse(args); err != nil {
		return nil, err
	}

	values := map[string]any{}
	_, underCLI := os.LookupEnv("CDK_CONTEXT_JSON")
	if _, overflow := os.LookupEnv("CONTEXT_OVERFLOW_LOCATION_ENV"); overflow {
		underCLI = true
	}
	if !underCLI {
		fromFile, err := stack.ContextFromFile("cdk.json")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for k, v := range fromFile {
			values[k] = v
		}
	}
	for k, v := range overrides {
		values[k] = v
	}
	return values, nil
}

// contextFlag collects repeated -c key=value flags the way the CDK CLI reads them.
type contextFlag map[string]any

func (c contextFlag) String() string { return fmt.Sprint(map[string]any(c)) }

func (c contextFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("context %q: want key=value", s)
	}
	c[k] = v
	return nil
}

func contextString(app awscdk.App, key, fallback string) string {
	v := app.Node().TryGetContext(jsii.String(key))
	if v == nil {
		return fallback
	}
	if s := fmt.Sprint(v); s != "" {
		return s
	}
	return fallback
}

// env pins the stack to the CLI's account and region when it knows them, and otherwise
// leaves the stack environment-agnostic so synthesis needs no credentials.
func env() *awscdk.Environment {
	account, region := os.Getenv("CDK_DEFAULT_ACCOUNT"), os.Getenv("CDK_DEFAULT_REGION")
	if account == "" && region == "" {
		return nil
	}
	e := &awscdk.Environment{}
	if account != "" {
		e.Account = jsii.String(account)
	}
	if region != "" {
		e.Region = jsii.String(region)
	}
	return e
}
