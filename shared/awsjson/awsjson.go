// Package awsjson calls one action of an AWS service that speaks the JSON protocol: a
// SigV4-signed POST of a JSON body to the service's endpoint, the action named by the
// X-Amz-Target header, errors answered as {"__type", "message"} (the protocol the KMS
// package kmskey already speaks; Secrets Manager's GetSecretValue, for instance, at
// https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html:
// "SecretId" in, "SecretString" out). A generated SDK client links its whole model
// (schemas, endpoint rules, types) into the binary, some 250 KB per service, for a
// function that makes one call (measured on the functions' arm64 builds).
package awsjson

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
)

// Service is one AWS service's JSON endpoint.
type Service struct {
	// SigningName is the service's name in the signature ("secretsmanager", "kms").
	SigningName string
	// TargetPrefix precedes the action in X-Amz-Target ("secretsmanager", "TrentService").
	TargetPrefix string
	// ContentType is the protocol version ("application/x-amz-json-1.1").
	ContentType string
	Endpoint    string
	Region      string
	Creds       aws.CredentialsProvider
	Client      *http.Client
}

// New is s on cfg's region and credentials, at endpoint (nil or empty: the regional
// endpoint https://<signing name>.<region>.amazonaws.com).
func New(cfg aws.Config, endpoint *string, signingName, targetPrefix, contentType string) *Service {
	url := "https://" + signingName + "." + cfg.Region + ".amazonaws.com"
	if endpoint != nil && *endpoint != "" {
		url = strings.TrimRight(*endpoint, "/")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	return &Service{SigningName: signingName, TargetPrefix: targetPrefix, ContentType: contentType, Endpoint: url,
		Region: cfg.Region, Creds: cfg.Credentials, Client: client}
}

// Error is a service's error answer.
type Error struct {
	Action string
	Status int
	// Type is the error's __type without its namespace ("ResourceNotFoundException").
	Type    string
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: status %d %s %s", e.Action, e.Status, e.Type, e.Message)
}

// Call makes one signed request of action with in as the JSON body and decodes the
// answer into out.
func (s *Service) Call(ctx context.Context, action string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", s.ContentType)
	req.Header.Set("X-Amz-Target", s.TargetPrefix+"."+action)
	if s.Creds == nil {
		return fmt.Errorf("%s: no AWS credentials", action)
	}
	creds, err := s.Creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("%s: credentials: %w", action, err)
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), s.SigningName, s.Region, time.Now()); err != nil {
		return fmt.Errorf("%s: sign: %w", action, err)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", action, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: read answer: %w", action, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &e)
		if i := strings.LastIndexByte(e.Type, '#'); i >= 0 {
			e.Type = e.Type[i+1:]
		}
		return &Error{Action: action, Status: resp.StatusCode, Type: e.Type, Message: e.Message}
	}
	return json.Unmarshal(data, out)
}
