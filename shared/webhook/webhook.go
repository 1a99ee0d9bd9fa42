// Package webhook signs and verifies Standard Webhooks v1 requests: headers webhook-id,
// webhook-timestamp (unix seconds) and webhook-signature, a space-separated list of
// "v1,<base64 HMAC-SHA256(key, id.timestamp.body)>". Any one matching signature passes, so a
// tenant can hold two secrets while it rotates.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of the Standard Webhooks scheme.
const (
	HeaderID        = "Webhook-Id"
	HeaderTimestamp = "Webhook-Timestamp"
	HeaderSignature = "Webhook-Signature"
)

// SecretPrefix starts every webhook secret; the key is the base64 text after it.
const SecretPrefix = "whsec_"

// DefaultTolerance is how far a timestamp may be from the verifier's clock either way.
const DefaultTolerance = 5 * time.Minute

// Bounds that keep a hostile request from costing more than a few HMACs.
const (
	maxIDLen         = 256
	maxSignatures    = 8
	maxSignatureText = 1024
)

// Errors a caller branches on. Verification never says which key or signature was wrong.
var (
	ErrMissingHeaders = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrTimestamp      = errors.New("webhook: timestamp outside the tolerance")
	// ErrTimestampFormat is a webhook-timestamp that is no integer count of seconds
	// (milliseconds are a number, so they are outside the tolerance instead). It wraps
	// ErrTimestamp: the same refusal, told apart so the caller can say what was wrong.
	ErrTimestampFormat  = fmt.Errorf("%w: webhook-timestamp is not a Unix timestamp in seconds", ErrTimestamp)
	ErrInvalidSignature = errors.New("webhook: no matching signature")
	ErrInvalidSecret    = errors.New("webhook: secret is not whsec_<base64>")
)

// Headers is the signature part of a request.
type Headers struct {
	ID        string
	Timestamp string
	Signature string
}

// HeadersFrom reads the Standard Webhooks headers of r. Repeated signature headers are
// joined, so every listed signature counts.
func HeadersFrom(h http.Header) Headers {
	return Headers{ID: h.Get(HeaderID), Timestamp: h.Get(HeaderTimestamp), Signature: strings.Join(h.Values(HeaderSignature), " ")}
}

// Set writes the headers into h.
func (hs Headers) Set(h http.Header) {
	h.Set(HeaderID, hs.ID)
	h.Set(HeaderTimestamp, hs.Timestamp)
	h.Set(HeaderSignature, hs.Signature)
}

// Verifier checks signatures against a clock.
type Verifier struct {
	// Tolerance bounds |now - timestamp|; zero means DefaultTolerance.
	Tolerance time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// CheckHeaders validates the headers' presence and timestamp, the part of verification that
// needs no key. Callers run it before looking up the tenant's keys.
func (v Verifier) CheckHeaders(h Headers) (time.Time, error) {
	if h.ID == "" || h.Timestamp == "" || h.Signature == "" || len(h.ID) > maxIDLen || len(h.Signature) > maxSignatureText {
		return time.Time{}, ErrMissingHeaders
	}
	secs, err := strconv.ParseInt(h.Timestamp, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return time.Time{}, ErrTimestampFormat
	}
	if err != nil {
		return time.Time{}, ErrTimestamp // digits, but centuries away
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	tol := v.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	nowSecs := now().Unix()
	if secs < nowSecs-int64(tol/time.Second) || secs > nowSecs+int64(tol/time.Second) {
		return time.Time{}, ErrTimestamp
	}
	return time.Unix(secs, 0), nil
}

// Verify checks the headers and that one of the signatures was made with one of keys over
// body. It computes every key's MAC and compares in constant time; with no keys it still
// computes one MAC so that an unknown tenant costs the same as a wrong signature.
func (v Verifier) Verify(h Headers, body []byte, keys [][]byte) error {
	if _, err := v.CheckHeaders(h); err != nil {
		return err
	}
	sigs := parseSignatures(h.Signature)
	if len(keys) == 0 {
		keys = [][]byte{unknownTenantKey[:]}
		sigs = nil
	}
	matched := false
	for _, key := range keys {
		want := sign(key, h.ID, h.Timestamp, body)
		for _, got := range sigs {
			if hmac.Equal(want, got) {
				matched = true
			}
		}
	}
	if !matched {
		return ErrInvalidSignature
	}
	return nil
}

var unknownTenantKey [32]byte

// parseSignatures returns the decoded v1 signatures of a header value, skipping other
// versions and malformed entries. Entries are "v1,<base64>" separated by spaces; it also
// reads header values that a proxy split on commas and rejoined (API Gateway's adapter
// does), since base64 contains neither separator.
func parseSignatures(header string) [][]byte {
	var out [][]byte
	tokens := strings.FieldsFunc(header, func(r rune) bool { return r == ' ' || r == ',' })
	for i := 0; i+1 < len(tokens) && len(out) < maxSignatures; i++ {
		// A "v1" followed by another "v1" is an empty entry; the second starts the next.
		if tokens[i] != "v1" || tokens[i+1] == "v1" {
			continue
		}
		i++
		raw, err := base64.StdEncoding.Strict().DecodeString(tokens[i])
		if err != nil || len(raw) != sha256.Size {
			continue
		}
		out = append(out, raw)
	}
	return out
}

func sign(key []byte, id, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Sign returns the headers for body sent at ts under key.
func Sign(key []byte, id string, ts time.Time, body []byte) Headers {
	stamp := strconv.FormatInt(ts.Unix(), 10)
	return Headers{
		ID:        id,
		Timestamp: stamp,
		Signature: "v1," + base64.StdEncoding.EncodeToString(sign(key, id, stamp, body)),
	}
}

// ParseSecret returns the HMAC key of a "whsec_<base64>" secret.
func ParseSecret(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrInvalidSecret
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) < 16 || len(key) > 128 {
		return nil, ErrInvalidSecret
	}
	return key, nil
}

// NewSecret returns a fresh secret with a 256-bit key.
func NewSecret() (string, error) {
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key[:]), nil
}

// NewMessageID returns a fresh webhook-id ("msg_" + 128 random bits).
func NewMessageID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms.
	return "msg_" + base64.RawURLEncoding.EncodeToString(b[:])
}
