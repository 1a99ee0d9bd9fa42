package platform

import (
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// AWSConfigFromEnv is the AWS configuration of a function: the region and the
// credentials Lambda puts in every function's environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), and AWS_ENDPOINT_URL when set. It does not
// use config.LoadDefaultConfig: in Lambda the default chain ends at those same variables,
// and linking the chain's SSO, STS and profile readers costs every function 1.8 MB
// (measured: a DynamoDB Lambda is 8.94 MB with it, 7.13 MB without). Per-service
// endpoints (AWS_ENDPOINT_URL_DYNAMODB, ...) are applied by Base.Endpoint where each
// client is built.
func AWSConfigFromEnv(getenv func(string) string) (aws.Config, error) {
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		return aws.Config{}, errors.New("AWS_REGION is not set (Lambda sets it; locally, make run does)")
	}
	id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		return aws.Config{}, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set: functions take the credentials Lambda puts in their environment")
	}
	cfg := aws.Config{Region: region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN")))}
	if v := getenv("AWS_ENDPOINT_URL"); v != "" {
		cfg.BaseEndpoint = aws.String(v)
	}
	return cfg, nil
}

// Endpoint is the endpoint AWS_ENDPOINT_URL_<SERVICE> names for service (its SDK id,
// such as "DynamoDB" or "Secrets Manager"), or the global one; nil means AWS's own.
func (b *Base) Endpoint(service string) *string {
	env := "AWS_ENDPOINT_URL_" + strings.ToUpper(strings.ReplaceAll(service, " ", "_"))
	if v := b.Getenv(env); v != "" {
		return aws.String(v)
	}
	return b.AWS.BaseEndpoint
}
