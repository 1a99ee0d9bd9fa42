package dlp

type kind uint8

const (
	kindCard kind = iota
	kindIBAN
	kindSSN
	kindEmail
	kindPhone
	kindAWSAccessKeyID
	kindAWSSecretAccessKey
	kindPrivateKey
	kindJWT
	kindBearerToken
	kindAPIKey
	kindURLPassword
	kindPasswordField
	numKinds
)

type kindInfo struct {
	name  string
	label string // placeholder and redaction label
	// priority decides the type of two overlapping findings once they are merged: the more
	// specific shape wins over the field rule that also covers it.
	priority             int8
	blocksConnectorWrite bool
}

var kinds = [numKinds]kindInfo{
	kindCard:               {TypeCardNumber, "CARD_NUMBER", 60, true},
	kindIBAN:               {TypeIBAN, "IBAN", 55, false},
	kindSSN:                {TypeSSN, "SSN", 50, true},
	kindEmail:              {TypeEmail, "EMAIL", 40, false},
	kindPhone:              {TypePhone, "PHONE", 30, false},
	kindAWSAccessKeyID:     {TypeAWSAccessKeyID, "AWS_ACCESS_KEY_ID", 85, true},
	kindAWSSecretAccessKey: {TypeAWSSecretAccessKey, "AWS_SECRET_ACCESS_KEY", 80, true},
	kindPrivateKey:         {TypePrivateKey, "PRIVATE_KEY", 100, true},
	kindJWT:                {TypeJWT, "JWT", 90, true},
	kindBearerToken:        {TypeBearerToken, "BEARER_TOKEN", 75, true},
	kindAPIKey:             {TypeAPIKey, "API_KEY", 86, true},
	kindURLPassword:        {TypeURLPassword, "URL_PASSWORD", 70, true},
	kindPasswordField:      {TypePasswordField, "PASSWORD_FIELD", 10, true},
}

func kindByName(name string) (kind, bool) {
	for k := range kinds {
		if kinds[k].name == name {
			return kind(k), true
		}
	}
	return 0, false
}

// span is a finding before it gets a path and a sample.
type span struct {
	start, end int
	kind       kind
	conf       float64
}
