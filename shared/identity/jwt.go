package identity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Claim names the verifier reads besides the registered ones (iss, aud, exp, nbf, iat, sub).
const (
	ClaimTenantID = "tenant_id"
	ClaimRoles    = "roles"
)

// Errors of Verify. Callers branch with errors.Is; an expired token is also an invalid one,
// so a caller that only cares about "reject with 401" can test ErrTokenInvalid alone. The
// error text names the reason (wrong issuer, bad signature...) but never any part of the
// token, so it is safe to log.
var (
	// ErrTokenInvalid: the token is not one this service accepts (malformed, unsigned or
	// badly signed, wrong issuer or audience, not yet valid, missing claims, unknown key).
	ErrTokenInvalid = errors.New("identity: invalid token")
	// ErrTokenExpired: the token was valid but its exp has passed (beyond the leeway).
	ErrTokenExpired = fmt.Errorf("%w: expired", ErrTokenInvalid)
	// ErrJWKSUnavailable: the issuer's keys could not be obtained, so the token could be
	// neither accepted nor refused. Not the caller's fault: answer 503, not 401.
	ErrJWKSUnavailable = errors.New("identity: issuer keys unavailable")
)

// Defaults of JWTConfig.
const (
	DefaultJWKSCacheTTL = 10 * time.Minute
	DefaultLeeway       = 30 * time.Second
)

// maxTokenBytes bounds what is parsed at all: real access tokens are a few KiB, and claims
// are decoded before the signature can be checked.
const maxTokenBytes = 16 << 10

// JWTConfig configures a JWTVerifier. Issuer, Audience, JWKSURL and ValidTenant are
// required; a verifier missing any of them refuses every token with ErrJWKSUnavailable (a
// deployment error, not the caller's).
type JWTConfig struct {
	// Issuer must equal the token's iss exactly.
	Issuer string
	// Audience must be one of the token's aud values.
	Audience string
	// JWKSURL is where the issuer publishes its signing keys.
	JWKSURL string
	// HTTPClient fetches the JWKS; nil means http.DefaultClient. Each fetch is bounded by
	// its own timeout regardless.
	HTTPClient *http.Client
	// CacheTTL is how long a fetched JWKS is trusted before it is fetched again; zero
	// means DefaultJWKSCacheTTL.
	CacheTTL time.Duration
	// Leeway absorbs clock skew on exp, nbf and iat; zero means DefaultLeeway, negative
	// means none.
	Leeway time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// TokenTypes are the typ header values accepted (case-insensitive); nil means
	// DefaultTokenTypes. A token without typ is accepted unless its claims mark it an ID
	// token (nonce, or token_use other than "access"), as Cognito's access tokens carry none.
	TokenTypes []string
	// ValidTenant says whether a token's tenant claim is a well-formed tenant id. The
	// tenant package owns that rule (tenant.ValidID); the composition root passes it in, so
	// identity, a platform package, knows no feature.
	ValidTenant TenantIDRule
}

// TenantIDRule reports whether id is a well-formed tenant id.
type TenantIDRule func(id string) bool

// DefaultTokenTypes are the access-token types of RFC 9068. An OIDC ID token of the same
// audience (typ "JWT") is refused: it proves a sign-in to the client, not a grant to call
// the API. An issuer that types its access tokens "JWT" is configured with
// JWT_TOKEN_TYPES=at+jwt,JWT.
var DefaultTokenTypes = []string{"at+jwt", "application/at+jwt"}

// JWTVerifier verifies operator and dashboard bearer tokens against the issuer's JWKS. It
// is safe for concurrent use; build one per process so the key cache is shared.
type JWTVerifier struct {
	cfg    JWTConfig
	parser *jwt.Parser
	keys   *keySet
}

// NewJWTVerifier returns a verifier for cfg. Nothing is fetched until the first Verify.
func NewJWTVerifier(cfg JWTConfig) *JWTVerifier {
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = DefaultJWKSCacheTTL
	}
	switch {
	case cfg.Leeway == 0:
		cfg.Leeway = DefaultLeeway
	case cfg.Leeway < 0:
		cfg.Leeway = 0
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.TokenTypes == nil {
		cfg.TokenTypes = DefaultTokenTypes
	}
	return &JWTVerifier{
		cfg: cfg,
		parser: jwt.NewParser(
			// Only asymmetric algorithms: "none" and HS* (where a public key could be
			// abused as the HMAC secret) are refused before any key is looked up.
			jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg()}),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithAudience(cfg.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(cfg.Leeway),
			jwt.WithTimeFunc(cfg.Now),
		),
		keys: &keySet{url: cfg.JWKSURL, client: cfg.HTTPClient, ttl: cfg.CacheTTL, now: cfg.Now},
	}
}

// tokenError carries a fixed, token-free reason beside the sentinel it unwraps to.
type tokenError struct {
	kind   error
	reason string
}

func (e *tokenError) Error() string { return e.kind.Error() + ": " + e.reason }
func (e *tokenError) Unwrap() error { return e.kind }

func invalid(reason string) error { return &tokenError{kind: ErrTokenInvalid, reason: reason} }

// Verify checks token's signature against the issuer's keys and its claims against cfg and
// returns the principal it names. Errors wrap ErrTokenInvalid, ErrTokenExpired or
// ErrJWKSUnavailable.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (Principal, error) {
	if v.cfg.Issuer == "" || v.cfg.Audience == "" || v.cfg.JWKSURL == "" || v.cfg.ValidTenant == nil {
		return Principal{}, fmt.Errorf("%w: the verifier needs an issuer, an audience, a JWKS URL and the tenant id rule", ErrJWKSUnavailable)
	}
	if token == "" {
		return Principal{}, invalid("empty token")
	}
	if len(token) > maxTokenBytes {
		return Principal{}, invalid("token too large")
	}
	// The key lookup's own error is kept aside: the library wraps it, and an unavailable
	// issuer must not be reported as a bad token.
	var keyErr error
	claims := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		k, err := v.key(ctx, t)
		keyErr = err
		return k, err
	})
	if err != nil {
		if keyErr != nil {
			return Principal{}, keyErr
		}
		return Principal{}, classify(err)
	}
	return principalFrom(claims, v.cfg.ValidTenant)
}

// key returns the public key for t, refusing a key whose type does not match the token's
// alg: an RSA key only ever verifies RS256, a P-256 key only ES256.
func (v *JWTVerifier) key(ctx context.Context, t *jwt.Token) (any, error) {
	if _, ok := t.Header["crit"]; ok {
		// RFC 7515 §4.1.11: critical extensions we do not understand make the token invalid.
		return nil, invalid("unsupported critical header")
	}
	if typ, present := t.Header["typ"]; present {
		s, _ := typ.(string)
		if !slices.ContainsFunc(v.cfg.TokenTypes, func(want string) bool { return strings.EqualFold(want, s) }) {
			return nil, invalid("not an access token (typ)")
		}
	}
	kid, _ := t.Header["kid"].(string)
	if kid == "" {
		return nil, invalid("no key id (kid) in the header")
	}
	k, err := v.keys.key(ctx, kid)
	if err != nil {
		return nil, err
	}
	if k.alg != t.Method.Alg() {
		return nil, invalid("algorithm does not match the key's type")
	}
	return k.pub, nil
}

// classify maps the library's errors to the sentinels, with a reason of our own words: the
// library's text can quote header values. Claim problems other than expiry win over
// expiry, so a token from the wrong issuer is never answered with "expired, refresh it".
func classify(err error) error {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return invalid("malformed")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return invalid("signature or algorithm not accepted")
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return invalid("unverifiable")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return invalid("wrong issuer")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return invalid("wrong audience")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return invalid("missing iss, aud or exp")
	case errors.Is(err, jwt.ErrInvalidType):
		return invalid("a registered claim has the wrong type")
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return invalid("not valid yet (nbf)")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return invalid("issued in the future (iat)")
	case errors.Is(err, jwt.ErrTokenExpired):
		return &tokenError{kind: ErrTokenExpired, reason: "exp has passed"}
	}
	return invalid("claims not accepted")
}

// principalFrom reads the service's claims. Roles the service does not know are dropped
// rather than refused, so an issuer may carry roles for other applications in the same
// claim; a roles claim of the wrong shape is refused, since it means the issuer and the
// service disagree about the token format.
func principalFrom(c jwt.MapClaims, validTenant TenantIDRule) (Principal, error) {
	sub, err := c.GetSubject()
	if err != nil || sub == "" {
		return Principal{}, invalid("missing sub")
	}
	if _, nonce := c["nonce"]; nonce {
		return Principal{}, invalid("an ID token (nonce), not an access token")
	}
	if use, present := c["token_use"]; present && use != "access" {
		return Principal{}, invalid("an ID token (token_use), not an access token")
	}
	tenantID, _ := c[ClaimTenantID].(string)
	if !validTenant(tenantID) {
		return Principal{}, invalid(ClaimTenantID + " missing or not a tenant id")
	}
	p := Principal{Subject: sub, TenantID: tenantID}
	p.Email, _ = c["email"].(string)
	p.Username, _ = c["preferred_username"].(string)
	if p.Username == "" {
		// Cognito access tokens carry the user name as "username".
		p.Username, _ = c["username"].(string)
	}
	raw, present := c[ClaimRoles]
	if !present {
		return p, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return Principal{}, invalid(ClaimRoles + " is not an array of strings")
	}
	for _, r := range list {
		role, ok := r.(string)
		if !ok {
			return Principal{}, invalid(ClaimRoles + " is not an array of strings")
		}
		if KnownRole(role) && !slices.Contains(p.Roles, role) {
			p.Roles = append(p.Roles, role)
		}
	}
	return p, nil
}

// KnownRole reports whether role is one of the service's roles.
func KnownRole(role string) bool {
	return role == RoleOperator || role == RoleApprover || role == RoleAdmin
}
