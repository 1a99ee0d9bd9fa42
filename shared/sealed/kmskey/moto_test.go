package kmskey_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/sealed/kmskey"
)

// The same sealing against moto's KMS, which implements the encryption context itself:
// the wrapper's hand-rolled JSON 1.1 calls must be what the SDK would send.
func TestSealWithKMSOnMoto(t *testing.T) {
	moto, err := emulators.StartMoto(context.Background(), emulators.MotoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(moto.Stop)
	// moto checks no signature, so the key is made with a bare request.
	req, _ := http.NewRequest(http.MethodPost, moto.Endpoint, bytes.NewReader([]byte(`{"Description":"sealing test"}`)))
	req.Header.Set("X-Amz-Target", "TrentService.CreateKey")
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20261126/us-east-1/kms/aws4_request")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct{ KeyMetadata struct{ Arn string } }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || created.KeyMetadata.Arn == "" {
		t.Fatalf("CreateKey: %d %v", resp.StatusCode, err)
	}
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	s := &sealed.Sealer{Wrapper: kmskey.New(cfg, aws.String(moto.Endpoint), created.KeyMetadata.Arn)}
	ctx := context.Background()
	acme := map[string]string{"tenant_id": "acme"}
	v, err := s.Seal(ctx, "connector-token", acme)
	if err != nil || !sealed.Sealed(v) {
		t.Fatalf("seal %q: %v", v, err)
	}
	fresh := &sealed.Sealer{Wrapper: kmskey.New(cfg, aws.String(moto.Endpoint), created.KeyMetadata.Arn)}
	if got, err := fresh.Open(ctx, v, acme); err != nil || got != "connector-token" {
		t.Fatalf("open %q: %v", got, err)
	}
	if _, err := fresh.Open(ctx, v, map[string]string{"tenant_id": "globex"}); !errors.Is(err, sealed.ErrOpen) {
		t.Fatalf("KMS opened a value under another tenant's context: %v", err)
	}
}
