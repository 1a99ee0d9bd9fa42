package awsjson_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/syncassist/syncassist/shared/awsjson"
)

// A call is a SigV4-signed POST naming the action in X-Amz-Target; an error answer comes
// back typed, without the type's namespace.
func TestCallSignsNamesTheActionAndTypesErrors(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		if strings.Contains(body, "missing") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"com.amazonaws.secretsmanager#ResourceNotFoundException","message":"no such secret"}`)
			return
		}
		_, _ = io.WriteString(w, `{"SecretString":"s3cret"}`)
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	s := awsjson.New(cfg, aws.String(srv.URL), "secretsmanager", "secretsmanager", "application/x-amz-json-1.1")
	var out struct{ SecretString string }
	if err := s.Call(context.Background(), "GetSecretValue", map[string]string{"SecretId": "arn:x"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.SecretString != "s3cret" || body != `{"SecretId":"arn:x"}` {
		t.Fatalf("answer %q, body %s", out.SecretString, body)
	}
	if tgt := got.Header.Get("X-Amz-Target"); tgt != "secretsmanager.GetSecretValue" {
		t.Errorf("X-Amz-Target %q", tgt)
	}
	if ct := got.Header.Get("Content-Type"); ct != "application/x-amz-json-1.1" {
		t.Errorf("Content-Type %q", ct)
	}
	if a := got.Header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKID/") ||
		!strings.Contains(a, "/eu-central-1/secretsmanager/aws4_request") {
		t.Errorf("Authorization %q: want a SigV4 signature for secretsmanager in eu-central-1", a)
	}
	err := s.Call(context.Background(), "GetSecretValue", map[string]string{"SecretId": "missing"}, &out)
	var e *awsjson.Error
	if !errors.As(err, &e) || e.Type != "ResourceNotFoundException" || e.Status != 400 || e.Message != "no such secret" {
		t.Fatalf("error %#v", err)
	}
}

// Without an endpoint, the service's regional one.
func TestRegionalEndpoint(t *testing.T) {
	s := awsjson.New(aws.Config{Region: "eu-central-1"}, nil, "secretsmanager", "secretsmanager", "application/x-amz-json-1.1")
	if s.Endpoint != "https://secretsmanager.eu-central-1.amazonaws.com" {
		t.Fatal(s.Endpoint)
	}
}
