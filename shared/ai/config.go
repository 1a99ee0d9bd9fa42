package ai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Provider names (AI_PROVIDER), matching infra/stack's AIProvider* constants.
const (
	ProviderRules   = "rules"
	ProviderBedrock = "bedrock"
	ProviderOpenAI  = "openai"
)

// DefaultTimeout bounds one provider operation (retries included) when the configuration
// names none. It stays well inside the diagnosis function's timeout so that a slow model
// ends as ErrTransient, not as a killed invocation.
const DefaultTimeout = 25 * time.Second

// DefaultOpenAIModel is the model of the OpenAI-compatible provider when AI_MODEL is empty.
const DefaultOpenAIModel = "gpt-4o-mini"

// ProviderConfig selects and configures a provider.
type ProviderConfig struct {
	// Name is "rules" (the default when empty), "bedrock" or "openai".
	Name string
	// Model is the model id (Bedrock: a model or inference profile id, required;
	// OpenAI: DefaultOpenAIModel when empty). The rules provider ignores it.
	Model string
	// OpenAIBaseURL is the endpoint of an OpenAI-compatible server, up to and including
	// the version ("https://api.openai.com/v1", "http://127.0.0.1:11434/v1").
	OpenAIBaseURL string
	// OpenAIAPIKey is sent as a bearer token when set; local servers often need none.
	OpenAIAPIKey string
	// HTTPClient is used by the HTTP providers (nil: a client of their own).
	HTTPClient *http.Client
	// Timeout bounds each provider operation (0: DefaultTimeout).
	Timeout time.Duration
	// AWSConfig configures the Bedrock client; the bedrock provider needs it (aiclient
	// gives the function's, with AWS_ENDPOINT_URL_BEDROCK_RUNTIME applied).
	AWSConfig *aws.Config
}

// ProviderConfigFromEnv reads AI_PROVIDER, AI_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY and
// AI_TIMEOUT (a Go duration such as "20s", or whole seconds).
func ProviderConfigFromEnv(getenv func(string) string) (ProviderConfig, error) {
	cfg := ProviderConfig{
		Name:          strings.ToLower(strings.TrimSpace(getenv("AI_PROVIDER"))),
		Model:         strings.TrimSpace(getenv("AI_MODEL")),
		OpenAIBaseURL: strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		OpenAIAPIKey:  strings.TrimSpace(getenv("OPENAI_API_KEY")),
	}
	if t := strings.TrimSpace(getenv("AI_TIMEOUT")); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil {
			n, nerr := strconv.Atoi(t)
			if nerr != nil {
				return ProviderConfig{}, fmt.Errorf("AI_TIMEOUT %q: want a duration such as 20s", t)
			}
			d = time.Duration(n) * time.Second
		}
		if d <= 0 {
			return ProviderConfig{}, fmt.Errorf("AI_TIMEOUT %q: must be positive", t)
		}
		cfg.Timeout = d
	}
	if err := cfg.validate(); err != nil {
		return ProviderConfig{}, err
	}
	return cfg, nil
}

func (c ProviderConfig) validate() error {
	switch c.Name {
	case "", ProviderRules:
	case ProviderBedrock:
		if c.Model == "" {
			return fmt.Errorf("AI provider %q needs a model (AI_MODEL)", c.Name)
		}
	case ProviderOpenAI:
		if c.OpenAIBaseURL == "" {
			return fmt.Errorf("AI provider %q needs a base URL (OPENAI_BASE_URL)", c.Name)
		}
		u, err := url.Parse(c.OpenAIBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("OPENAI_BASE_URL %q: want an http(s) URL", c.OpenAIBaseURL)
		}
	default:
		return fmt.Errorf("AI provider %q: want %q, %q or %q", c.Name, ProviderRules, ProviderBedrock, ProviderOpenAI)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("AI timeout %v: must not be negative", c.Timeout)
	}
	return nil
}

// NewProvider builds the configured provider. Build it once per process (a Lambda's init)
// and share it: the HTTP and AWS clients it holds are safe for concurrent use.
func NewProvider(ctx context.Context, cfg ProviderConfig) (Provider, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	switch cfg.Name {
	case ProviderBedrock:
		if cfg.AWSConfig == nil {
			return nil, errors.New("bedrock: no AWS configuration")
		}
		return newBedrockProvider(*cfg.AWSConfig, cfg.Model, cfg.HTTPClient, timeout), nil
	case ProviderOpenAI:
		model := cfg.Model
		if model == "" {
			model = DefaultOpenAIModel
		}
		client := cfg.HTTPClient
		if client == nil {
			client = &http.Client{}
		}
		return &openAIProvider{
			base: strings.TrimRight(cfg.OpenAIBaseURL, "/"), key: cfg.OpenAIAPIKey, model: model,
			client: client, timeout: timeout,
		}, nil
	}
	return NewRulesProvider(), nil
}
