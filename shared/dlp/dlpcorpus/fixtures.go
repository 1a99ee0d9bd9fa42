package dlpcorpus

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Fake credentials are assembled from pieces so that the repository never holds a string
// that push protection or a secret scanner would take for a real key.
func k(parts ...string) string { return strings.Join(parts, "") }

func jwtOf(header, payload string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload)) +
		"." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
}

func pem(label, body string, withEnd bool) string {
	s := k("-----BEGIN ", label, "-----\n", body, "\n")
	if withEnd {
		s += k("-----END ", label, "-----")
	}
	return s
}

// Fixtures are the secrets of the corpus, referenced as {{NAME}} in inputs and
// expectations. None of them is real.
var Fixtures = map[string]string{
	"AWS_KEY_ID":    k("AKIA", "Z7QWERTY2PLMNB3X"),
	"AWS_KEY_ID_2":  k("ASIA", "Y6HJKL4MNBVCXZ2Q"),
	"AWS_KEY_ID_3":  k("AKIA", "IOSFODNN7EXAMPLE"),
	"AWS_SECRET":    k("q8Zr3LmN5vB1xT7y", "U9iO0pA2sD4fG6hJ8kL+", "wE/r"),
	"AWS_SECRET_2":  k("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"),
	"AWS_SECRET_3":  k("Zx9/Yw8+Vu7Ts6Rq5Po4", "Nm3Lk2Ji1Hg0FeDcBa9Z"),
	"GH_TOKEN":      k("gh", "p_", "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"),
	"GH_OAUTH":      k("gh", "o_", "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"),
	"GH_INSTALL":    k("gh", "s_", "16C7e42F292c6912E7710c838347Ae178B4a"),
	"GH_PAT":        k("github", "_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX01234"),
	"SLACK_BOT":     k("xo", "xb-", "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
	"SLACK_BOT_2":   k("xo", "xb-", "2048-4096-aBcDeFgHiJkLmNoPqRsT"),
	"SLACK_USER":    k("xo", "xp-", "223456789012-2234567890123-2234567890123-0f1e2d3c4b5a69788796a5b4c3d2e1f0"),
	"STRIPE_LIVE":   k("sk", "_live_", "51HqL2mKb3Nc4Pd5Qe6Rf7Sg8Th9Ui0Vj"),
	"STRIPE_RK":     k("rk", "_live_", "51HqL2mKb3Nc4Pd5Qe6Rf7Sg8Th9Ui0Vk"),
	"STRIPE_WHSEC":  k("wh", "sec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
	"GOOGLE_KEY":    k("AI", "za", "SyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1v"),
	"GITLAB_PAT":    k("gl", "pat-", "xY9zA8bC7dE6fG5hI4jK"),
	"SERVICE_TOKEN": k(serviceTokenPrefix, "Qm9vZ2xlTXlTZXJ2aWNlVG9rZW4xMjM0NTY3ODkw"),
	"OPENAI_KEY":    k("sk", "-proj-", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90"),
	"SHOPIFY":       k("shp", "at_", "a1b2c3d4e5f60718293a4b5c6d7e8f90"),
	"SENDGRID":      k("SG", ".", "ngeVfQFYQlKU0ufo8x5d1A", ".", "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"),
	"NPM_TOKEN":     k("np", "m_", "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"),
	"MAILCHIMP":     k("0123456789abcdef", "0123456789abcdef", "-us21"),
	"JWT":           jwtOf(`{"alg":"HS256","typ":"JWT"}`, `{"sub":"cust-42","tenant":"acme","exp":1764000000}`),
	"JWT_RS":        jwtOf(`{"alg":"RS256","kid":"k1"}`, `{"iss":"https://idp.example.com","aud":"erp"}`),
	"OPAQUE_BEARER": k("8f2b1c9d4e7a6b3c", "2d1e0f9a8b7c6d5e"),
	"GOOGLE_OAUTH":  k("ya29", ".a0AfH6SMBx3kQ9zLmN5vB1xT7yU9iO0pA2sD4f"),
	"PEM_RSA": pem("RSA PRIVATE KEY", "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n"+
		"aN6H9Xq0aoMg2Sy2t1r2KZx8hGy3a8fZtEy0z6zYk5Vx3tQ2w1W4n5k6j7h8g9f0", true),
	"PEM_OPENSSH": pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"+
		"\nQyNTUxOQAAACBhZ2VudC1rZXktZm9yLXRlc3RzLW9ubHktbm90LXJlYWwAAAA", true),
	"PEM_EC":        pem("EC PRIVATE KEY", "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oYSAD4Jt4SxxoAoGCCqGSM49\nAwEHoUQDQgAE", true),
	"PEM_TRUNCATED": pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", false),
}

// serviceTokenPrefix is dlp.ServiceTokenPrefix, which this package cannot import (see the
// package comment); dlp's TestCorpusTypesAreKnown checks the SERVICE_TOKEN fixture.
const serviceTokenPrefix = "sat_"

var replacer = func() *strings.Replacer {
	var pairs []string
	for name, v := range Fixtures {
		pairs = append(pairs, "{{"+name+"}}", v)
	}
	return strings.NewReplacer(pairs...)
}()

var jsonReplacer = func() *strings.Replacer {
	var pairs []string
	for name, v := range Fixtures {
		q, _ := json.Marshal(v)
		pairs = append(pairs, "{{"+name+"}}", string(q[1:len(q)-1]))
	}
	return strings.NewReplacer(pairs...)
}()

// Expand replaces each {{NAME}} in s with its fixture.
func Expand(s string) string { return replacer.Replace(s) }

// ExpandJSON replaces each {{NAME}} in s with its fixture escaped for a JSON string (a
// PEM's newlines become \n).
func ExpandJSON(s string) string { return jsonReplacer.Replace(s) }
