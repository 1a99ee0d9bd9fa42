// Package kmskey is the AWS KMS key keeper of package sealed: data keys are generated and
// unwrapped by KMS under one symmetric key, bound to the encryption context, so a value
// sealed for one tenant cannot be opened as another's, and only a function granted
// kms:Decrypt on the key can open anything.
package kmskey

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/syncassist/syncassist/shared/sealed"
)

// API is the part of the KMS client the wrapper uses; *kms.Client implements it.
type API interface {
	GenerateDataKey(ctx context.Context, in *kms.GenerateDataKeyInput, optFns ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error)
	Decrypt(ctx context.Context, in *kms.DecryptInput, optFns ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

var _ API = (*kms.Client)(nil)

// Wrapper implements sealed.Wrapper with the KMS key KeyID (an ARN, id or alias).
type Wrapper struct {
	Client API
	KeyID  string
}

var _ sealed.Wrapper = (*Wrapper)(nil)

// New is a Wrapper on key with a KMS client of cfg at endpoint (nil: the service's own).
func New(cfg aws.Config, endpoint *string, key string) *Wrapper {
	return &Wrapper{Client: kms.NewFromConfig(cfg, func(o *kms.Options) { o.BaseEndpoint = endpoint }), KeyID: key}
}

// NewDataKey implements sealed.Wrapper.
func (w *Wrapper) NewDataKey(ctx context.Context, aad map[string]string) ([]byte, []byte, error) {
	out, err := w.Client.GenerateDataKey(ctx, &kms.GenerateDataKeyInput{
		KeyId: aws.String(w.KeyID), KeySpec: types.DataKeySpecAes256, EncryptionContext: aad,
	})
	if err != nil {
		return nil, nil, err
	}
	if len(out.Plaintext) != 32 || len(out.CiphertextBlob) == 0 {
		return nil, nil, fmt.Errorf("kms answered a data key of %d bytes", len(out.Plaintext))
	}
	return out.Plaintext, out.CiphertextBlob, nil
}

// Unwrap implements sealed.Wrapper.
func (w *Wrapper) Unwrap(ctx context.Context, wrapped []byte, aad map[string]string) ([]byte, error) {
	out, err := w.Client.Decrypt(ctx, &kms.DecryptInput{
		CiphertextBlob: wrapped, KeyId: aws.String(w.KeyID), EncryptionContext: aad,
	})
	if err != nil {
		return nil, err
	}
	return out.Plaintext, nil
}
