package dlp_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
)

func TestSensitiveField(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "apiKey": true, "client_secret": true, "cardNumber": true, "ssn": true, "phoneNumber": true,
		"contactPhone": true, "awsSecretAccessKey": true, "cvv2": true,
		"subsidiary": false, "shipcountry": false, "idempotencyKey": false, "trackingNumber": false, "memo": false,
		"phoneVerified": false, "tokenCount": false,
	} {
		if got := dlp.SensitiveField(name); got != want {
			t.Errorf("SensitiveField(%q) = %v, want %v", name, got, want)
		}
	}
}
