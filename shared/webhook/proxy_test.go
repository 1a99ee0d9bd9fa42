package webhook_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/webhook"
)

// API Gateway's Lambda adapter splits header values on commas; a signature must still verify.
func TestVerifyHeadersSplitOnCommas(t *testing.T) {
	now := time.Unix(1795341600, 0)
	key := []byte("0123456789abcdef0123456789abcdef")
	other := []byte("fedcba9876543210fedcba9876543210")
	body := []byte(`{"a":1}`)
	good := webhook.Sign(key, "msg_1", now, body)
	bad := webhook.Sign(other, "msg_1", now, body)
	v := webhook.Verifier{Now: func() time.Time { return now }}
	for name, values := range map[string][]string{
		"one header":              {good.Signature},
		"split on the comma":      strings.Split(good.Signature, ","),
		"two entries, split":      strings.Split(bad.Signature+" "+good.Signature, ","),
		"two header lines":        {bad.Signature, good.Signature},
		"comma-joined two values": {bad.Signature + "," + good.Signature},
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			h.Set(webhook.HeaderID, good.ID)
			h.Set(webhook.HeaderTimestamp, good.Timestamp)
			for _, s := range values {
				h.Add(webhook.HeaderSignature, s)
			}
			if err := v.Verify(webhook.HeadersFrom(h), body, [][]byte{key}); err != nil {
				t.Fatalf("values %q: %v", values, err)
			}
			if err := v.Verify(webhook.HeadersFrom(h), body, [][]byte{[]byte("nope-nope-nope-nope")}); err == nil {
				t.Fatalf("values %q verified under the wrong key", values)
			}
		})
	}
}
