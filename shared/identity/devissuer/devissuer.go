// Package devissuer is the development JWT issuer of the local stack: one ES256 key kept
// in a PEM file, its JWKS and discovery document served over HTTP, and tokens minted for
// any subject, tenant and roles. It stands in for the real identity provider so the local
// stack verifies tokens exactly as production does. It has no login and no secrets worth
// the name: never mount it outside a developer's machine.
package devissuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Defaults a loaded Issuer starts with; the local stack mounts Handler under the
// issuer's path on its API address.
const (
	DefaultURL      = "http://127.0.0.1:3000/dev-issuer"
	DefaultAudience = "syncassist"
)

// Paths Handler serves, relative to where it is mounted.
const (
	JWKSPath      = "/.well-known/jwks.json"
	DiscoveryPath = "/.well-known/openid-configuration"
)

// Issuer mints tokens with one key. Set URL and Audience before use if the defaults do not
// fit; they must match the verifier's Issuer and Audience.
type Issuer struct {
	// URL is the iss of minted tokens and the base of the discovery document's jwks_uri.
	URL string
	// Audience is the aud of minted tokens.
	Audience string

	key   *ecdsa.PrivateKey
	kid   string
	codes *codes
}

// Load returns the issuer whose key is in the PEM file at path, creating the key (and the
// file, mode 0600, and its directory, mode 0700) if the file does not exist. Processes that
// race to create it end up sharing whichever key was written first.
func Load(path string) (*Issuer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = create(path)
	}
	if err != nil {
		return nil, fmt.Errorf("dev issuer key %s: %w", path, err)
	}
	key, err := parseKey(b)
	if err != nil {
		return nil, fmt.Errorf("dev issuer key %s: %w", path, err)
	}
	return newIssuer(key)
}

func newIssuer(key *ecdsa.PrivateKey) (*Issuer, error) {
	kid, err := thumbprint(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &Issuer{URL: DefaultURL, Audience: DefaultAudience, key: key, kid: kid, codes: &codes{}}, nil
}

// create writes a fresh key to path and returns the file's contents. The key is written to
// a temporary file and linked into place, so no reader ever sees half a file and a
// concurrent creator's key is never overwritten.
func create(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	b := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dev-issuer-*.pem")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	err = os.Link(tmp.Name(), path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		// No hard links on this file system: an exclusive create still never overwrites,
		// at the cost of a reader possibly catching the file half written.
		err = writeExclusive(path, b)
	}
	switch {
	case errors.Is(err, fs.ErrExist):
		return os.ReadFile(path)
	case err != nil:
		return nil, err
	}
	return b, nil
}

func writeExclusive(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func parseKey(b []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q: want PRIVATE KEY", block.Type)
	}
	if err != nil {
		return nil, err
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errors.New("want an ECDSA P-256 key (ES256)")
	}
	return ec, nil
}

// publicJWK is the key's JWK members in the lexicographic order RFC 7638 hashes them in.
type publicJWK struct {
	Crv string `json:"crv"`
	Kty string `json:"kty"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func jwkOf(pub *ecdsa.PublicKey) (publicJWK, error) {
	point, err := pub.Bytes() // 0x04 || X || Y, each coordinate padded to 32 bytes
	if err != nil {
		return publicJWK{}, err
	}
	enc := base64.RawURLEncoding.EncodeToString
	return publicJWK{Crv: "P-256", Kty: "EC", X: enc(point[1:33]), Y: enc(point[33:])}, nil
}

// thumbprint is the RFC 7638 JWK thumbprint: the kid stays the same for as long as the key
// file does, across restarts, so verifiers' caches stay valid.
func thumbprint(pub *ecdsa.PublicKey) (string, error) {
	j, err := jwkOf(pub)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(j)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// KeyID returns the kid of minted tokens (the key's RFC 7638 thumbprint).
func (i *Issuer) KeyID() string { return i.kid }

// Mint returns a signed ES256 token for subject in tenantID with roles, valid from now
// for ttl. Roles are not checked, so tests can mint roles the service ignores.
func (i *Issuer) Mint(subject, tenantID string, roles []string, ttl time.Duration) (string, error) {
	if subject == "" || tenantID == "" {
		return "", errors.New("mint: subject and tenant are required")
	}
	if ttl <= 0 {
		return "", errors.New("mint: ttl must be positive")
	}
	now := time.Now()
	var jti [16]byte
	_, _ = rand.Read(jti[:])
	if roles == nil {
		roles = []string{}
	}
	claims := jwt.MapClaims{
		"iss":                  i.url(),
		"aud":                  i.audience(),
		"sub":                  subject,
		identity.ClaimTenantID: tenantID,
		identity.ClaimRoles:    roles,
		"iat":                  now.Unix(),
		"nbf":                  now.Unix(),
		"exp":                  now.Add(ttl).Unix(),
		"jti":                  base64.RawURLEncoding.EncodeToString(jti[:]),
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["kid"] = i.kid
	t.Header["typ"] = "at+jwt" // an access token (RFC 9068), which verifiers require
	s, err := t.SignedString(i.key)
	if err != nil {
		return "", fmt.Errorf("mint: %w", err)
	}
	return s, nil
}

// url is the iss claim: exactly URL, since verifiers compare it byte for byte.
func (i *Issuer) url() string {
	if i.URL == "" {
		return DefaultURL
	}
	return i.URL
}

func (i *Issuer) jwksURI() string { return strings.TrimSuffix(i.url(), "/") + JWKSPath }

func (i *Issuer) audience() string {
	if i.Audience == "" {
		return DefaultAudience
	}
	return i.Audience
}

// Handler serves the JWKS at JWKSPath, the discovery document at DiscoveryPath and the
// sign-in flow at AuthorizePath and TokenPath. Mount it under the path of URL (with or
// without http.StripPrefix): it matches the end of the request path.
func (i *Issuer) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body any
		switch {
		case strings.HasSuffix(r.URL.Path, AuthorizePath):
			i.authorize(w, r)
			return
		case strings.HasSuffix(r.URL.Path, TokenPath):
			i.token(w, r)
			return
		case strings.HasSuffix(r.URL.Path, JWKSPath):
			j, err := jwkOf(&i.key.PublicKey)
			if err != nil {
				httpapi.WriteInternal(w, r, err)
				return
			}
			body = map[string]any{"keys": []any{map[string]string{
				"kty": j.Kty, "crv": j.Crv, "x": j.X, "y": j.Y, "kid": i.kid, "use": "sig", "alg": "ES256",
			}}}
		case strings.HasSuffix(r.URL.Path, DiscoveryPath):
			body = map[string]any{
				"issuer":                                i.url(),
				"jwks_uri":                              i.jwksURI(),
				"authorization_endpoint":                strings.TrimSuffix(i.url(), "/") + AuthorizePath,
				"token_endpoint":                        strings.TrimSuffix(i.url(), "/") + TokenPath,
				"response_types_supported":              []string{"code"},
				"grant_types_supported":                 []string{"authorization_code"},
				"code_challenge_methods_supported":      []string{"S256"},
				"id_token_signing_alg_values_supported": []string{"ES256"},
				"claims_supported":                      []string{"iss", "aud", "sub", "exp", "nbf", "iat", "jti", identity.ClaimTenantID, identity.ClaimRoles},
			}
		default:
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "route_not_found",
				"The development issuer serves only "+JWKSPath+", "+DiscoveryPath+", "+AuthorizePath+" and "+TokenPath+"."))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusMethodNotAllowed, "method_not_allowed",
				"Use GET."))
			return
		}
		// Short, so a regenerated key (after make clean) reaches browsers and proxies soon.
		w.Header().Set("Cache-Control", "public, max-age=60")
		httpapi.WriteJSON(w, http.StatusOK, body)
	})
}
