package kmskey_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/sealed/kmskey"
)

// fakeKMS answers GenerateDataKey and Decrypt as AWS KMS does (JSON 1.1 protocol, blobs in
// base64, InvalidCiphertextException for a wrong context), wrapping with a key of its own.
func fakeKMS(t *testing.T, keyID string) *httptest.Server {
	t.Helper()
	master, _ := sealed.ParseLocalKey(sealed.NewLocalKey())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			KeyId             string
			KeySpec           string
			CiphertextBlob    []byte
			EncryptionContext map[string]string
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.KeyId != keyID {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"__type":"NotFoundException","message":"key"}`))
			return
		}
		if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETESTONLY/") ||
			!strings.Contains(r.Header.Get("Authorization"), "/eu-central-1/kms/aws4_request") {
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"__type":"IncompleteSignatureException","message":"sign"}`))
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		switch r.Header.Get("X-Amz-Target") {
		case "TrentService.GenerateDataKey":
			plain, wrapped, _ := master.NewDataKey(r.Context(), in.EncryptionContext)
			_ = json.NewEncoder(w).Encode(map[string]any{"KeyId": keyID, "Plaintext": plain, "CiphertextBlob": wrapped})
		case "TrentService.Decrypt":
			plain, err := master.Unwrap(r.Context(), in.CiphertextBlob, in.EncryptionContext)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"__type":"InvalidCiphertextException","message":"context"}`))
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"KeyId": keyID, "Plaintext": plain})
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSealWithKMS(t *testing.T) {
	const key = "arn:aws:kms:eu-central-1:111122223333:key/test"
	srv := fakeKMS(t, key)
	cfg := aws.Config{Region: "eu-central-1", Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKIDEXAMPLETESTONLY", SecretAccessKey: "test-secret-not-real"}, nil
	})}
	s := &sealed.Sealer{Wrapper: kmskey.New(cfg, aws.String(srv.URL), key)}
	ctx := context.Background()
	acme := map[string]string{"tenant_id": "acme"}
	v, err := s.Seal(ctx, "connector-token", acme)
	if err != nil || !sealed.Sealed(v) {
		t.Fatalf("seal %q: %v", v, err)
	}
	if got, err := s.Open(ctx, v, acme); err != nil || got != "connector-token" {
		t.Fatalf("open %q: %v", got, err)
	}
	fresh := &sealed.Sealer{Wrapper: kmskey.New(cfg, aws.String(srv.URL), key)}
	if _, err := fresh.Open(ctx, v, map[string]string{"tenant_id": "globex"}); !errors.Is(err, sealed.ErrOpen) {
		t.Fatalf("KMS opened a value under another tenant's context: %v", err)
	}
}
