package connector

// NetSuite's OAuth 2.0 machine-to-machine (client credentials) login takes no client
// secret: the client signs a JWT with the private key of the certificate mapped to the
// integration and sends it as a client assertion.
//
//   - POST https://<accountID>.suitetalk.api.netsuite.com/services/rest/auth/oauth2/v1/token,
//     application/x-www-form-urlencoded: grant_type=client_credentials,
//     client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer,
//     client_assertion=<JWT>; the answer is {"access_token","expires_in":"3600",
//     "token_type":"bearer"}, the token valid for 60 minutes ("POST Request to the Token
//     Endpoint and the Access Token Response",
//     https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_162755359851.html).
//   - The JWT header: typ JWT, alg PS256, PS384, PS512, ES256, ES384 or ES512, kid the
//     certificate ID the mapping generated; the payload: iss the client ID, scope
//     (restlets, rest_webservices, suite_analytics), aud the token endpoint, iat, and exp
//     less than 60 minutes after iat ("The Request Token Structure",
//     https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_162790605110.html).
//     RS256 is not in the list (Oracle's older sample request still shows it), so RSA
//     keys sign with PS256.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ClientAssertionType is the client_assertion_type of a JWT client assertion (RFC 7523).
const ClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// NetSuiteDefaultScope is the scope asked for when the connector names none: the record
// service and SuiteQL are REST web services.
const NetSuiteDefaultScope = "rest_webservices"

// netsuiteAssertionTTL is how long an assertion is valid: it is used once, at once, and
// Oracle allows at most 60 minutes.
const netsuiteAssertionTTL = 5 * time.Minute

// m2mKey is a parsed NetSuite M2M credential.
type m2mKey struct {
	clientID, certificateID string
	key                     crypto.Signer
	method                  jwt.SigningMethod
}

// NetSuiteCredential makes the connector credential of NetSuite's M2M login from the
// integration's client ID, the certificate ID of its mapping and the certificate's private
// key (PEM: PKCS#8, PKCS#1 RSA or SEC 1 EC). The credential is one visible-ASCII value,
// "clientId:certificateId:<base64 PKCS#8 key>", stored sealed like every connector
// credential.
func NetSuiteCredential(clientID, certificateID string, privateKeyPEM []byte) (string, error) {
	block, _ := pem.Decode(privateKeyPEM)
	if block == nil {
		return "", errors.New("the private key is not PEM")
	}
	key, err := parsePrivateKey(block.Bytes)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", errors.New("the private key cannot be encoded")
	}
	cred := clientID + ":" + certificateID + ":" + base64.StdEncoding.EncodeToString(der)
	if _, err := parseNetSuiteCredential(cred); err != nil {
		return "", err
	}
	return cred, nil
}

func parsePrivateKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("the private key is not an RSA or EC key")
}

// parseNetSuiteCredential reads "clientId:certificateId:<base64 PKCS#8 key>" and picks the
// signing algorithm NetSuite accepts for the key.
func parseNetSuiteCredential(cred string) (m2mKey, error) {
	parts := strings.SplitN(cred, ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return m2mKey{}, errors.New("NetSuite machine-to-machine credentials are clientId:certificateId:privateKey (base64 PKCS#8), not a client secret")
	}
	der, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil {
		return m2mKey{}, errors.New("the private key is not base64")
	}
	key, err := parsePrivateKey(der)
	if err != nil {
		return m2mKey{}, err
	}
	k := m2mKey{clientID: parts[0], certificateID: parts[1], key: key}
	switch pub := key.Public().(type) {
	case *rsa.PublicKey:
		if pub.N.BitLen() < 2048 {
			return m2mKey{}, errors.New("the RSA key is shorter than 2048 bits")
		}
		k.method = jwt.SigningMethodPS256
	case *ecdsa.PublicKey:
		k.method = map[elliptic.Curve]jwt.SigningMethod{elliptic.P256(): jwt.SigningMethodES256,
			elliptic.P384(): jwt.SigningMethodES384, elliptic.P521(): jwt.SigningMethodES512}[pub.Curve]
	}
	if k.method == nil {
		return m2mKey{}, errors.New("the key's curve is not one NetSuite signs with (P-256, P-384, P-521)")
	}
	return k, nil
}

// assertion is the signed JWT for one token request to tokenURL.
func (k m2mKey) assertion(tokenURL, scope string, now time.Time) (string, error) {
	scopes := strings.FieldsFunc(scope, func(r rune) bool { return r == ',' || r == ' ' })
	if len(scopes) == 0 {
		scopes = []string{NetSuiteDefaultScope}
	}
	// Oracle's examples send scope as a JSON array of the scope names.
	claims := jwt.MapClaims{"iss": k.clientID, "scope": scopes, "aud": tokenURL,
		"iat": now.Unix(), "exp": now.Add(netsuiteAssertionTTL).Unix()}
	tok := jwt.NewWithClaims(k.method, claims)
	tok.Header["kid"] = k.certificateID
	return tok.SignedString(k.key)
}

// CheckNetSuiteCredential says why cred is no NetSuiteCredential, nil when it is one. The
// reason never quotes the credential.
func CheckNetSuiteCredential(cred string) error {
	_, err := parseNetSuiteCredential(cred)
	return err
}
