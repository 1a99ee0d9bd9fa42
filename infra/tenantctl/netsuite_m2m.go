package main

import (
	"errors"
	"flag"
	"io"
	"os"
)

// m2mFlags are NetSuite's machine-to-machine login: the integration's client ID, the
// certificate ID of its mapping and the certificate's private key (PEM file). They make the
// credential "clientId:certificateId:<PEM>", which the settings service stores in the
// connector's form (sealed, like every connector credential).
type m2mFlags struct{ clientID, certificateID, keyFile *string }

func netsuiteM2MFlags(fs *flag.FlagSet) m2mFlags {
	return m2mFlags{
		clientID:      fs.String("client-id", "", "NetSuite M2M: the integration's client ID"),
		certificateID: fs.String("certificate-id", "", "NetSuite M2M: the certificate ID of the integration's mapping"),
		keyFile:       fs.String("private-key-file", "", "NetSuite M2M: the certificate's private key (PEM)"),
	}
}

// credential is the credential the flags give, or tok when none is set.
func (m m2mFlags) credential(tok *string) (*string, error) {
	if *m.clientID == "" && *m.certificateID == "" && *m.keyFile == "" {
		return tok, nil
	}
	switch {
	case tok != nil:
		return nil, errors.New("give the credential with -token-file/-token-stdin or with -client-id, -certificate-id and -private-key-file, not both")
	case *m.clientID == "" || *m.certificateID == "" || *m.keyFile == "":
		return nil, errors.New("NetSuite's M2M login needs -client-id, -certificate-id and -private-key-file together")
	}
	f, err := os.Open(*m.keyFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	key, err := io.ReadAll(io.LimitReader(f, maxInput))
	if err != nil {
		return nil, err
	}
	cred := *m.clientID + ":" + *m.certificateID + ":" + string(key)
	return &cred, nil
}
