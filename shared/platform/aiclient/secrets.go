package aiclient

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/syncassist/syncassist/shared/platform"
)

// secretValue reads a Secrets Manager secret's string value, once, at a function's start;
// keeping keys out of environment variables keeps them out of the function's
// configuration, which many more people can read than the secret.
func secretValue(ctx context.Context, b *platform.Base, arn string) (string, error) {
	sm := secretsmanager.NewFromConfig(b.AWS, func(o *secretsmanager.Options) { o.BaseEndpoint = b.Endpoint("Secrets Manager") })
	out, err := sm.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
	if err != nil {
		return "", err
	}
	if out.SecretString == nil || *out.SecretString == "" {
		return "", errors.New("the secret has no string value")
	}
	return *out.SecretString, nil
}
