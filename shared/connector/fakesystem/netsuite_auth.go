package fakesystem

// NetSuite's token endpoint for the OAuth 2.0 machine-to-machine (client credentials)
// flow, as Oracle documents it:
//
//   - the request is a form with grant_type=client_credentials,
//     client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer and
//     client_assertion=<JWT signed with the certificate's private key>; the answer is
//     {"access_token","expires_in":"3600","token_type":"bearer"}
//     (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_162755359851.html);
//   - the JWT: typ JWT, alg PS256/PS384/PS512/ES256/ES384/ES512, kid the certificate ID
//     of the mapping; iss the client ID, scope, aud the token endpoint, iat, and exp less
//     than 60 minutes after iat
//     (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_162790605110.html).
//
// NetSuite's M2M login has no client secret, so a client_id + client_secret grant is
// refused. The error body is {"error": "<value>"} (Oracle's OAuth 2.0 error pages,
// https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_161243690371.html);
// a client assertion that does not verify is invalid_client, answered 401 (RFC 7523 §3.2,
// RFC 6749 §5.2). That NetSuite's client-credentials endpoint answers exactly these statuses
// is an assumption: Oracle lists the values, not the statuses.

import (
	"crypto"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// NetSuiteTokenPath is NetSuite's token endpoint, where the hosterp fake serves its
// tokens once IssueAssertionTokens is called.
const NetSuiteTokenPath = "/services/rest/auth/oauth2/v1/token"

// netsuiteAlgs are the signing algorithms NetSuite accepts for the client assertion.
var netsuiteAlgs = []string{"PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}

// m2mClient is an integration mapped to a certificate: its client ID, the certificate ID
// the mapping generated, and the certificate's public key.
type m2mClient struct {
	clientID, certificateID string
	key                     crypto.PublicKey
}

// IssueAssertionTokens makes the NetSuite fake accept only bearer tokens it issued at
// NetSuiteTokenPath to a client assertion of clientID, signed by the private key of pub
// and naming certificateID as kid, each token valid for ttl.
func (s *Server) IssueAssertionTokens(clientID, certificateID string, pub crypto.PublicKey, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = &tokenIssuer{clientID: clientID, ttl: ttl, issued: map[string]time.Time{},
		m2m: &m2mClient{clientID: clientID, certificateID: certificateID, key: pub}}
}

// tokenPath is where the fake's token endpoint is: NetSuite's own path for the hosterp
// fake, TokenPath for the others.
func (s *Server) tokenPath() string {
	switch s.dialect.(type) {
	case netsuiteFake:
		return NetSuiteTokenPath
	case salesforceFake:
		return SalesforceTokenPath
	}
	return TokenPath
}

// issueAssertion answers a NetSuite M2M token request.
func (t *tokenIssuer) issueAssertion(r *http.Request, form url.Values) reply {
	switch {
	case form.Get("client_secret") != "" || r.Header.Get("Authorization") != "":
		// The secret grant: NetSuite's M2M flow authenticates the client by assertion only.
		return jsonReply(http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
	case form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || form.Get("client_assertion") == "":
		return jsonReply(http.StatusBadRequest, map[string]string{"error": "invalid_request"})
	}
	if t.m2m == nil || t.verifyAssertion(form.Get("client_assertion"), endpointURL(r)) != nil {
		return jsonReply(http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
	}
	t.count++
	tok := "fake-access-" + strconv.Itoa(t.count)
	t.issued[tok] = time.Now().Add(t.ttl)
	// NetSuite writes expires_in as a string and token_type in lower case.
	return jsonReply(http.StatusOK, map[string]any{"access_token": tok, "token_type": "bearer",
		"expires_in": strconv.Itoa(int(t.ttl.Seconds()))})
}

// verifyAssertion checks the JWT's signature against the registered key and its header
// and claims against Oracle's token structure, aud being the endpoint as the client
// addressed it.
func (t *tokenIssuer) verifyAssertion(assertion, aud string) error {
	claims := jwt.MapClaims{}
	tok, err := jwt.ParseWithClaims(assertion, claims, func(tok *jwt.Token) (any, error) {
		if kid, _ := tok.Header["kid"].(string); kid != t.m2m.certificateID {
			return nil, fmt.Errorf("kid %q is not the mapped certificate", kid)
		}
		return t.m2m.key, nil
	}, jwt.WithValidMethods(netsuiteAlgs), jwt.WithIssuer(t.m2m.clientID), jwt.WithAudience(aud),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	if err != nil {
		return err
	}
	if typ, _ := tok.Header["typ"].(string); typ != "JWT" {
		return fmt.Errorf("typ %q is not JWT", typ)
	}
	iat, err1 := claims.GetIssuedAt()
	exp, err2 := claims.GetExpirationTime()
	if err1 != nil || err2 != nil || iat == nil || exp.Sub(iat.Time) >= time.Hour {
		return fmt.Errorf("exp must be less than 60 minutes after iat")
	}
	if !validScope(claims["scope"]) {
		return fmt.Errorf("scope %v names no NetSuite scope", claims["scope"])
	}
	return nil
}

// validScope takes the scope as Oracle's examples send it (a JSON array) or as its table
// describes it (the names separated by a comma).
func validScope(v any) bool {
	var names []string
	switch v := v.(type) {
	case string:
		names = strings.Split(v, ",")
	case []any:
		for _, n := range v {
			s, _ := n.(string)
			names = append(names, s)
		}
	}
	for _, n := range names {
		if !slices.Contains([]string{"restlets", "rest_webservices", "suite_analytics"}, strings.TrimSpace(n)) {
			return false
		}
	}
	return len(names) > 0
}

// endpointURL is the token endpoint's address as the client used it, prefixes a mounting
// mux stripped included.
func endpointURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	path, _, _ := strings.Cut(r.RequestURI, "?")
	return scheme + "://" + r.Host + path
}
