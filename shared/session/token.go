package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// A service token is "sat_<tenantId>_<secret>": the identity package's prefix, so
// identity.Authenticate, the DLP scanner and secret scanners recognise it; the tenant in
// clear, so the store finds its hash under the tenant's partition (every key starts with
// the tenant) without a cross-tenant index; and 256 random bits as 43 unpadded base64url
// characters. Every character after the prefix is base64url, which the DLP scanner needs to
// see the whole token as one api_key.
const (
	tokenSecretBytes = 32
	tokenSecretLen   = 43 // base64.RawURLEncoding.EncodedLen(tokenSecretBytes)
)

var strictB64 = base64.RawURLEncoding.Strict()

// newToken returns a fresh service token for tenantID.
func newToken(tenantID string) (string, error) {
	if !tenant.ValidID(tenantID) {
		return "", fmt.Errorf("session: tenant id %q cannot carry a service token", tenantID)
	}
	for {
		var b [tokenSecretBytes]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("session: token randomness: %w", err)
		}
		secret := base64.RawURLEncoding.EncodeToString(b[:])
		// The DLP scanner, like most secret scanners, only reports a prefixed token whose
		// body mixes character classes. A draw without a digit and without both cases
		// (about 1 in 10^14) is drawn again so that every token is reported.
		if mixesClasses(secret) {
			return identity.ServiceTokenPrefix + tenantID + "_" + secret, nil
		}
	}
}

func mixesClasses(s string) bool {
	var digit, upper, lower bool
	for _, c := range s {
		digit = digit || c >= '0' && c <= '9'
		upper = upper || c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
	}
	return digit || upper && lower
}

// parseToken returns the tenant a well-formed token names. It says nothing about whether
// the token was issued.
func parseToken(token string) (tenantID string, ok bool) {
	rest, ok := strings.CutPrefix(token, identity.ServiceTokenPrefix)
	if !ok || len(rest) < tokenSecretLen+2 {
		return "", false
	}
	sep := len(rest) - tokenSecretLen - 1
	if rest[sep] != '_' {
		return "", false
	}
	tenantID, secret := rest[:sep], rest[sep+1:]
	if !tenant.ValidID(tenantID) {
		return "", false
	}
	if b, err := strictB64.DecodeString(secret); err != nil || len(b) != tokenSecretBytes {
		return "", false
	}
	return tenantID, true
}

// hashToken is what the store keeps instead of the token.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Session and context ids are 128 random bits, drawn independently of the token: knowing
// an id tells nothing about any token.
const (
	sessionIDPrefix = "ses_"
	contextIDPrefix = "ctx_"
	idRandomBytes   = 16
	idLen           = 4 + 22 // prefix + base64.RawURLEncoding.EncodedLen(idRandomBytes)
)

func newID(prefix string) (string, error) {
	var b [idRandomBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session: id randomness: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// validContextID reports whether id has the shape of an issued context id, so that no other
// text reaches a store key.
func validContextID(id string) bool {
	rest, ok := strings.CutPrefix(id, contextIDPrefix)
	if !ok || len(id) != idLen {
		return false
	}
	_, err := strictB64.DecodeString(rest)
	return err == nil
}
