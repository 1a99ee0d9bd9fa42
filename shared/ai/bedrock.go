package ai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithy "github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/syncassist/syncassist/shared/identity"
)

// bedrockMaxTokens bounds a diagnosis answer; a few hundred tokens is typical.
const bedrockMaxTokens = 2048

// converser is the part of the Bedrock runtime client the provider uses.
type converser interface {
	Converse(ctx context.Context, in *bedrockruntime.ConverseInput, optFns ...func(*bedrockruntime.Options)) (*bedrockruntime.ConverseOutput, error)
}

// bedrockProvider calls a model through Amazon Bedrock's Converse API, which gives every
// model family one request and response shape.
type bedrockProvider struct {
	client  converser
	model   string
	timeout time.Duration
}

func newBedrockProvider(cfg aws.Config, model string, hc *http.Client, timeout time.Duration) *bedrockProvider {
	client := bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) {
		if hc != nil {
			o.HTTPClient = hc
		}
		// One retry with a short backoff, like the OpenAI provider: the diagnosis queue
		// retries for longer, and a Lambda must not spend its timeout in backoff.
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = 2
			so.MaxBackoff = 500 * time.Millisecond
		})
	})
	return &bedrockProvider{client: client, model: model, timeout: timeout}
}

func (p *bedrockProvider) Name() string { return ProviderBedrock }

func (p *bedrockProvider) chat(ctx context.Context, _ *identity.Identity, req ChatRequest) (ChatResponse, Usage, error) {
	var system []string
	var turns []types.Message
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			system = append(system, m.Content)
		case RoleAssistant:
			turns = append(turns, textMessage(types.ConversationRoleAssistant, m.Content))
		default:
			turns = append(turns, textMessage(types.ConversationRoleUser, m.Content))
		}
	}
	text, u, err := p.converse(ctx, system, turns)
	if err != nil {
		return ChatResponse{}, u, err
	}
	return ChatResponse{Content: text}, u, nil
}

func (p *bedrockProvider) suggest(ctx context.Context, _ *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error) {
	user, err := suggestUserPrompt(req)
	if err != nil {
		return Diagnosis{}, Usage{Model: p.model}, fmt.Errorf("bedrock: %v: %w", err, ErrPermanent)
	}
	text, u, err := p.converse(ctx, []string{suggestSystemPrompt}, []types.Message{textMessage(types.ConversationRoleUser, user)})
	if err != nil {
		return Diagnosis{}, u, err
	}
	d, err := parseSuggestion(text)
	if err != nil {
		return Diagnosis{}, u, fmt.Errorf("bedrock: %w", err)
	}
	return d, u, nil
}

func (p *bedrockProvider) assessQuality(ctx context.Context, _ *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error) {
	user, err := assessUserPrompt(req, d)
	if err != nil {
		return 0, Usage{Model: p.model}, fmt.Errorf("bedrock: %v: %w", err, ErrPermanent)
	}
	text, u, err := p.converse(ctx, []string{assessSystemPrompt}, []types.Message{textMessage(types.ConversationRoleUser, user)})
	if err != nil {
		return 0, u, err
	}
	c, err := parseConfidence(text)
	if err != nil {
		return 0, u, fmt.Errorf("bedrock: %w", err)
	}
	return c, u, nil
}

func textMessage(role types.ConversationRole, text string) types.Message {
	return types.Message{Role: role, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: text}}}
}

func (p *bedrockProvider) converse(ctx context.Context, system []string, msgs []types.Message) (string, Usage, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	u := Usage{Model: p.model}
	in := &bedrockruntime.ConverseInput{
		ModelId:  aws.String(p.model),
		Messages: msgs,
		InferenceConfig: &types.InferenceConfiguration{
			Temperature: aws.Float32(0),
			MaxTokens:   aws.Int32(bedrockMaxTokens),
		},
	}
	for _, s := range system {
		in.System = append(in.System, &types.SystemContentBlockMemberText{Value: s})
	}
	out, err := p.client.Converse(ctx, in)
	if err != nil {
		return "", u, fmt.Errorf("bedrock: %w", classifyBedrockError(err))
	}
	if out.Usage != nil {
		u.InputTokens = int(aws.ToInt32(out.Usage.InputTokens))
		u.OutputTokens = int(aws.ToInt32(out.Usage.OutputTokens))
	}
	switch out.StopReason {
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return "", u, fmt.Errorf("bedrock: the model's answer was filtered (%s): %w", out.StopReason, ErrPermanent)
	case types.StopReasonMaxTokens:
		return "", u, fmt.Errorf("bedrock: the model's answer was cut at %d tokens: %w", bedrockMaxTokens, ErrPermanent)
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return "", u, fmt.Errorf("bedrock: the response holds no message: %w", ErrPermanent)
	}
	for _, b := range msg.Value.Content {
		if t, ok := b.(*types.ContentBlockMemberText); ok {
			return t.Value, u, nil
		}
	}
	return "", u, fmt.Errorf("bedrock: the response message has no text: %w", ErrPermanent)
}

// classifyBedrockError maps the SDK's typed errors (after its own retry) to ErrTransient
// or ErrPermanent, keeping the SDK error in the chain.
func classifyBedrockError(err error) error {
	var (
		throttling  *types.ThrottlingException
		unavailable *types.ServiceUnavailableException
		internal    *types.InternalServerException
		modelTime   *types.ModelTimeoutException
		notReady    *types.ModelNotReadyException
		quota       *types.ServiceQuotaExceededException
		validation  *types.ValidationException
		denied      *types.AccessDeniedException
		notFound    *types.ResourceNotFoundException
		modelErr    *types.ModelErrorException
		conflict    *types.ConflictException
		canceled    *aws.RequestCanceledError
		decode      *smithy.DeserializationError
		respErr     *smithyhttp.ResponseError
		apiErr      smithy.APIError
		netErr      net.Error
	)
	switch {
	case errors.As(err, &throttling), errors.As(err, &unavailable), errors.As(err, &internal),
		errors.As(err, &modelTime), errors.As(err, &notReady), errors.As(err, &quota):
		return fmt.Errorf("%w: %w", err, ErrTransient)
	case errors.As(err, &validation), errors.As(err, &denied), errors.As(err, &notFound),
		errors.As(err, &modelErr), errors.As(err, &conflict):
		return fmt.Errorf("%w: %w", err, ErrPermanent)
	case errors.As(err, &decode):
		// The service answered with something that is not a Converse response, like an
		// unparseable model answer.
		return fmt.Errorf("%w: %w", err, ErrPermanent)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.As(err, &canceled), errors.As(err, &netErr):
		return fmt.Errorf("%w: %w", err, ErrTransient)
	case errors.As(err, &respErr):
		if s := respErr.HTTPStatusCode(); s == http.StatusTooManyRequests || s == http.StatusRequestTimeout || s >= 500 {
			return fmt.Errorf("%w: %w", err, ErrTransient)
		}
		return fmt.Errorf("%w: %w", err, ErrPermanent)
	case errors.As(err, &apiErr):
		if apiErr.ErrorFault() == smithy.FaultServer {
			return fmt.Errorf("%w: %w", err, ErrTransient)
		}
		return fmt.Errorf("%w: %w", err, ErrPermanent)
	}
	// No answer from the service at all (a connection that broke mid-way): the next
	// attempt may get one.
	return fmt.Errorf("%w: %w", err, ErrTransient)
}
