package platform

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// EnvAuditPseudonymSecret names the Secrets Manager secret that holds the stage's audit
// pseudonym key where AUDIT_PSEUDONYM_KEY is not set (every deployed stage).
const EnvAuditPseudonymSecret = "AUDIT_PSEUDONYM_SECRET_ARN"

// SecretValue reads a Secrets Manager secret's string value. Keeping keys out of
// environment variables keeps them out of the function's configuration, which many more
// people can read than the secret.
func (b *Base) SecretValue(ctx context.Context, arn string) (string, error) {
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

// pseudonymKey is the audit log's key source: the configured key, else the stage's secret
// read on first use and kept once read (a failed read is tried again next time), else none.
func (b *Base) pseudonymKey() func(context.Context) ([]byte, error) {
	switch {
	case len(b.Config.AuditPseudonymKey) > 0:
		key := b.Config.AuditPseudonymKey
		return func(context.Context) ([]byte, error) { return key, nil }
	case b.Config.AuditPseudonymSecretARN != "":
		var mu sync.Mutex
		var key []byte
		return func(ctx context.Context) ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			if key != nil {
				return key, nil
			}
			v, err := b.SecretValue(ctx, b.Config.AuditPseudonymSecretARN)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", EnvAuditPseudonymSecret, err)
			}
			if len(v) < 32 {
				return nil, fmt.Errorf("%s: want at least 32 characters", EnvAuditPseudonymSecret)
			}
			key = []byte(v)
			return key, nil
		}
	}
	return nil
}
