package settings

import (
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
)

// NetSuite's machine-to-machine login signs a client assertion with the private key of the
// certificate mapped to the integration; it takes no client secret (connector's
// netsuite_m2m.go). Its credential is the client ID, the certificate ID and the key, given
// as "clientId:certificateId:<PEM private key>" (or already in the stored form, the key as
// base64 PKCS#8) and stored sealed like every connector credential.

// netsuiteCredentials puts each NetSuite M2M credential of p into the stored form and names
// those NetSuite could not log in with. A credential for a token URL is one when the patch
// sets the URL or the credential holds a PEM key; one given for a token URL already stored
// is checked by the client when it is used.
func netsuiteCredentials(p Patch) []FieldError {
	cp := p.Connectors[string(connector.SystemHostERP)]
	if cp == nil || cp.Token == nil || *cp.Token == "" {
		return nil
	}
	tok := *cp.Token
	withURL := cp.TokenURL != nil && *cp.TokenURL != ""
	if !withURL && !strings.Contains(tok, "-----BEGIN") {
		return nil
	}
	field := "connectors." + string(connector.SystemHostERP) + ".token"
	if id, rest, ok := strings.Cut(tok, ":"); ok && strings.Contains(rest, "-----BEGIN") {
		cert, key, _ := strings.Cut(rest, ":")
		cred, err := connector.NetSuiteCredential(id, cert, []byte(key))
		if err != nil {
			return []FieldError{{field, err.Error()}}
		}
		cp.Token = &cred
		return nil
	}
	if err := connector.CheckNetSuiteCredential(tok); err != nil {
		return []FieldError{{field, err.Error() + `; give "clientId:certificateId:" followed by the certificate's PEM private key`}}
	}
	return nil
}
