package platform

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/syncassist/syncassist/shared/awsjson"
)

// EnvAuditPseudonymSecret names the Secrets Manager secret that holds the stage's audit
// pseudonym key where AUDIT_PSEUDONYM_KEY is not set (every deployed stage).
const EnvAuditPseudonymSecret = "AUDIT_PSEUDONYM_SECRET_ARN"

// SecretValue reads a Secrets Manager secret's string value. Keeping keys out of
// environment variables keeps them out of the function's configuration, which many more
// people can read than the secret. It is the one Secrets Manager call, made over signed
// JSON (awsjson) rather than the SDK's client, which would add 250 KB to every function.
func (b *Base) SecretValue(ctx context.Context, arn string) (string, error) {
	sm := awsjson.New(b.AWS, b.Endpoint("Secrets Manager"), "secretsmanager", "secretsmanager", "application/x-amz-json-1.1")
	var out struct{ SecretString string }
	if err := sm.Call(ctx, "GetSecretValue", map[string]string{"SecretId": arn}, &out); err != nil {
		return "", err
	}
	if out.SecretString == "" {
		return "", errors.New("the secret has no string value")
	}
	return out.SecretString, nil
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
