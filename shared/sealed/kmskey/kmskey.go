// Package kmskey is the AWS KMS key keeper of package sealed: data keys are generated and
// unwrapped by KMS under one symmetric key, bound to the encryption context, so a value
// sealed for one tenant cannot be opened as another's, and only a function granted
// kms:Decrypt on the key can open anything.
//
// It calls the two KMS actions it needs (GenerateDataKey, Decrypt) through awsjson, the
// JSON 1.1 protocol (https://docs.aws.amazon.com/kms/latest/APIReference/), rather than
// through the SDK's KMS client, whose generated code would add half a megabyte to every
// function that opens a secret.
package kmskey

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/syncassist/syncassist/shared/awsjson"
	"github.com/syncassist/syncassist/shared/sealed"
)

// Wrapper implements sealed.Wrapper with the KMS key KeyID (an ARN, id or alias).
type Wrapper struct {
	KeyID string
	kms   *awsjson.Service
}

var _ sealed.Wrapper = (*Wrapper)(nil)

// New is a Wrapper on key with the credentials and region of cfg, at endpoint (nil: the
// regional KMS endpoint).
func New(cfg aws.Config, endpoint *string, key string) *Wrapper {
	return &Wrapper{KeyID: key, kms: awsjson.New(cfg, endpoint, "kms", "TrentService", "application/x-amz-json-1.1")}
}

// NewDataKey implements sealed.Wrapper.
func (w *Wrapper) NewDataKey(ctx context.Context, aad map[string]string) ([]byte, []byte, error) {
	var out struct{ Plaintext, CiphertextBlob []byte }
	err := w.call(ctx, "GenerateDataKey", map[string]any{"KeyId": w.KeyID, "KeySpec": "AES_256", "EncryptionContext": aad}, &out)
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
	var out struct{ Plaintext []byte }
	err := w.call(ctx, "Decrypt", map[string]any{"KeyId": w.KeyID, "CiphertextBlob": wrapped, "EncryptionContext": aad}, &out)
	return out.Plaintext, err
}

// call makes one KMS request ([]byte members travel as base64, which encoding/json does).
// A refusal names the action, status and error type only: KMS's message may quote the
// encryption context, which names the tenant and purpose.
func (w *Wrapper) call(ctx context.Context, action string, in, out any) error {
	err := w.kms.Call(ctx, action, in, out)
	var e *awsjson.Error
	if errors.As(err, &e) {
		return fmt.Errorf("kms %s: status %d %s", action, e.Status, e.Type)
	}
	if err != nil {
		return fmt.Errorf("kms %w", err)
	}
	return nil
}
