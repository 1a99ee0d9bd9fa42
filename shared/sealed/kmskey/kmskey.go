// Package kmskey is the AWS KMS key keeper of package sealed: data keys are generated and
// unwrapped by KMS under one symmetric key, bound to the encryption context, so a value
// sealed for one tenant cannot be opened as another's, and only a function granted
// kms:Decrypt on the key can open anything.
//
// It calls the two KMS actions it needs (GenerateDataKey, Decrypt) over signed HTTP, the
// JSON 1.1 protocol (https://docs.aws.amazon.com/kms/latest/APIReference/), rather than
// through the SDK's KMS client, whose generated code would add half a megabyte to every
// function that opens a secret.
package kmskey

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/syncassist/syncassist/shared/sealed"
)

// Wrapper implements sealed.Wrapper with the KMS key KeyID (an ARN, id or alias).
type Wrapper struct {
	KeyID    string
	endpoint string
	region   string
	creds    aws.CredentialsProvider
	client   *http.Client
	signer   *v4.Signer
}

var _ sealed.Wrapper = (*Wrapper)(nil)

// New is a Wrapper on key with the credentials and region of cfg, at endpoint (nil: the
// regional KMS endpoint).
func New(cfg aws.Config, endpoint *string, key string) *Wrapper {
	url := "https://kms." + cfg.Region + ".amazonaws.com"
	if endpoint != nil && *endpoint != "" {
		url = strings.TrimRight(*endpoint, "/")
	}
	return &Wrapper{KeyID: key, endpoint: url, region: cfg.Region, creds: cfg.Credentials,
		client: &http.Client{Timeout: 5 * time.Second}, signer: v4.NewSigner()}
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

// call makes one signed KMS request (JSON 1.1: []byte members travel as base64, which
// encoding/json does) and decodes the answer into out.
func (w *Wrapper) call(ctx context.Context, action string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "TrentService."+action)
	if w.creds == nil {
		return fmt.Errorf("kms %s: no AWS credentials", action)
	}
	creds, err := w.creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("kms %s: credentials: %w", action, err)
	}
	sum := sha256.Sum256(body)
	if err := w.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "kms", w.region, time.Now()); err != nil {
		return fmt.Errorf("kms %s: sign: %w", action, err)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("kms %s: %w", action, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("kms %s: read answer: %w", action, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &e)
		return fmt.Errorf("kms %s: status %d %s", action, resp.StatusCode, e.Type)
	}
	return json.Unmarshal(data, out)
}
