package dlp_test

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
)

func TestMaskedValue(t *testing.T) {
	for v, want := range map[string]bool{
		// Placeholders, alone and inside text.
		"[REDACTED:PASSWORD_FIELD]":            true,
		"[REDACTED:EMAIL] ~p:0123456789abcdef": true,
		"call [PHONE_2] after five":            true,
		"[EMAIL_1]":                            true,
		"[CARD_NUMBER_12]":                     true,
		"[REDACTED:IBAN]":                      true,
		"[[EMAIL_1]":                           true,
		"[REDACTED]":                           false, // no label: the DLP never writes it
		"the file said [REDACTED] here":        false,
		"[SECTION_1]":                          false, // not a label of the DLP
		"[EMAIL]":                              false, // an AIPrompt placeholder has its number
		"[EMAIL_]":                             false,
		"[REDACTED:]":                          false,
		"[email_1]":                            false,
		"[EMAIL_1":                             false,
		// Star masks of the shapes the DLP writes.
		"*****6789":                             true, // SSN (Stored, Display)
		"411111******1111":                      true, // PCI mask (Stored)
		"4111********1111":                      true, // card sample (Display)
		"DE89************3000":                  true, // IBAN sample
		"j***@e***.com":                         true, // e-mail sample
		"********0000":                          true, // phone sample
		"********":                              true, // password sample
		" *** ":                                 true, // nothing but a mask
		"postgres://u:********@db.example.com/": true,
		"SSN *****6789 on file":                 true,
		"card 411111***1111.":                   true, // a 13-digit card's mask, the shortest
		// Near misses: what a person may mean to write.
		"":                         false,
		"*":                        false,
		"**":                       false,
		"a*b":                      false,
		"a**b":                     false,
		"**bold**":                 false,
		"2 * 3 = 6":                false,
		"*** NOTE ***":             false,
		"rating: ***":              false,
		"rated us *****!":          false,
		"(***)":                    false,
		"-*****-":                  false,
		"***bold***":               true, // glued to letters: read as a mask
		"C*":                       false,
		"DE89370400440532013000":   false,
		"jane@example.com":         false,
		"4111 1111 1111 1111":      false,
		"Deutschland":              false,
		"•••• 1111":                false, // not a mask this package writes
		"xxxx-xxxx-xxxx-1111":      false,
		"{{ vault.erp_password }}": false,
	} {
		if got := dlp.MaskedValue(v); got != want {
			t.Errorf("MaskedValue(%q) = %v, want %v", v, got, want)
		}
	}
}

// Every value the DLP rewrites, under every policy that rewrites, reads as masked: the
// judgement follows the package's own output, not a list of examples of it.
func TestMaskedValueKnowsEveryMaskTheDLPWrites(t *testing.T) {
	doc := map[string]any{
		"ssn": "123-45-6789", "card": "4111 1111 1111 1111", "card13": "4222222222222", "iban": "DE89 3704 0044 0532 0130 00",
		"email": "jane.doe@example.com", "phone": "+1 415 555 0100", "apiPassword": "hunter2-correct-horse",
		"awsKey": "AKIAIOSFODNN7EXAMPLE", "url": "postgres://app:s3cr3t-pw@db.internal:5432/erp",
		"memo": "SSN 123-45-6789, card 4111111111111111, mail jane.doe@example.com",
		"jwt":  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
	}
	raw, _ := json.Marshal(doc)
	s := dlp.NewScanner()
	for _, dest := range []dlp.Destination{dlp.Stored, dlp.Display, dlp.Record, dlp.AIPrompt} {
		res, err := s.ScanJSON(dest, raw)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		rewritten := 0
		for k, v := range out {
			s, _ := v.(string)
			changed := s != doc[k]
			if changed {
				rewritten++
			}
			if changed != dlp.MaskedValue(s) {
				t.Errorf("%s: %s became %q; MaskedValue says %v", dest, k, s, dlp.MaskedValue(s))
			}
		}
		if rewritten < 5 {
			t.Errorf("%s rewrote only %d values: the case proves little", dest, rewritten)
		}
	}
	for k, v := range doc {
		if dlp.MaskedValue(v.(string)) {
			t.Errorf("the clear value of %s reads as masked: %q", k, v)
		}
	}
}
