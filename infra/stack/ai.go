package stack

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// AI providers a function marked InvokesAI can be configured with.
const (
	// AIProviderRules diagnoses with built-in rules only: no model, no network, no cost.
	AIProviderRules = "rules"
	// AIProviderBedrock calls Amazon Bedrock's Converse API with the stack's own role.
	AIProviderBedrock = "bedrock"
	// AIProviderOpenAI calls an OpenAI-compatible endpoint at AIProps.OpenAIBaseURL.
	AIProviderOpenAI = "openai"
)

// DefaultAIProvider is the provider when AIProps.Provider is empty.
const DefaultAIProvider = AIProviderRules

// Environment variables of the functions marked InvokesAI.
const (
	envAIProvider    = "AI_PROVIDER"
	envAIModel       = "AI_MODEL"
	envOpenAIBaseURL = "OPENAI_BASE_URL"
	// EnvOpenAIKeySecret names the Secrets Manager secret holding the OpenAI API key; the
	// function reads it once at start.
	EnvOpenAIKeySecret = "OPENAI_API_KEY_SECRET_ARN"
)

// aiEnvNames are the variables aiEnvironment may set, for validate's duplicate check.
var aiEnvNames = []string{envAIProvider, envAIModel, envOpenAIBaseURL, EnvOpenAIKeySecret}

// bedrockInvokeAction is what the Converse API is authorized as (ConverseStream would be
// bedrock:InvokeModelWithResponseStream, which the service does not use).
const bedrockInvokeAction = "bedrock:InvokeModel"

// inferenceProfilePrefixes mark a Bedrock model id as a cross-region inference profile.
var inferenceProfilePrefixes = []string{"us.", "eu.", "apac.", "global."}

// AIProps configures the AI provider of the functions marked InvokesAI.
type AIProps struct {
	// Provider is AIProviderRules (DefaultAIProvider when empty), AIProviderBedrock or
	// AIProviderOpenAI.
	Provider string
	// Model is the provider's model id; required for Bedrock, where it is also the only
	// model the functions may invoke. A cross-region inference profile id ("us.…") works.
	Model string
	// OpenAIBaseURL is the OpenAI-compatible endpoint; required for AIProviderOpenAI.
	//
	// The OpenAI API key never goes into the template (environment variables are readable
	// by anyone who can read the function's configuration): it comes from the secret
	// OpenAIKeySecretARN, which the functions may read and nothing else.
	OpenAIBaseURL string
	// OpenAIKeySecretARN is the Secrets Manager secret (its whole value is the API key).
	OpenAIKeySecretARN string
}

func (a AIProps) withDefaults() AIProps {
	if a.Provider == "" {
		a.Provider = DefaultAIProvider
	}
	return a
}

// environment is what a function marked InvokesAI learns about the provider.
func (a AIProps) environment() map[string]string {
	a = a.withDefaults()
	env := map[string]string{envAIProvider: a.Provider}
	if a.Model != "" {
		env[envAIModel] = a.Model
	}
	if a.OpenAIBaseURL != "" {
		env[envOpenAIBaseURL] = a.OpenAIBaseURL
	}
	if a.Provider == AIProviderOpenAI && a.OpenAIKeySecretARN != "" {
		env[EnvOpenAIKeySecret] = a.OpenAIKeySecretARN
	}
	return env
}

// grantsBedrock reports whether functions marked InvokesAI get to invoke a Bedrock model.
// A model that validate rejects grants nothing.
func (a AIProps) grantsBedrock() bool {
	a = a.withDefaults()
	return a.Provider == AIProviderBedrock && a.Model != "" && !strings.ContainsAny(a.Model, "*?")
}

// inferenceProfileModel returns the foundation model behind a cross-region inference
// profile id ("us.anthropic.x" -> "anthropic.x"), or false for a plain model id.
func inferenceProfileModel(model string) (string, bool) {
	for _, p := range inferenceProfilePrefixes {
		if base, ok := strings.CutPrefix(model, p); ok {
			return base, true
		}
	}
	return "", false
}

// allowProfileRegions accepts the one wildcard of bedrockInvokeStatement: the region of
// the foundation model behind an inference profile, which the profile chooses per request.
func allowProfileRegions(role awsiam.IRole, model string) {
	base, ok := inferenceProfileModel(model)
	policy := role.Node().TryFindChild(jsii.String("DefaultPolicy"))
	if !ok || policy == nil {
		return
	}
	suppress(policy, "IAM5", "A cross-region inference profile routes each request to its foundation model "+
		"in a region it picks, so the model is granted in every region; model and profile are exact",
		"Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/"+base)
}

// bedrockInvokeStatement allows invoking exactly one model, in the stack's partition and
// region. An inference profile is authorized on the profile in this region and on its
// foundation model in every region the profile may route the request to.
func bedrockInvokeStatement(scope constructs.IConstruct, model string) awsiam.PolicyStatement {
	st := awscdk.Stack_Of(scope)
	partition, region, account := *st.Partition(), *st.Region(), *st.Account()
	var resources []*string
	if base, ok := inferenceProfileModel(model); ok {
		resources = []*string{
			jsii.String("arn:" + partition + ":bedrock:" + region + ":" + account + ":inference-profile/" + model),
			jsii.String("arn:" + partition + ":bedrock:*::foundation-model/" + base),
		}
	} else {
		resources = []*string{
			jsii.String("arn:" + partition + ":bedrock:" + region + "::foundation-model/" + model),
		}
	}
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Effect:    awsiam.Effect_ALLOW,
		Actions:   jsii.Strings(bedrockInvokeAction),
		Resources: &resources,
	})
}
