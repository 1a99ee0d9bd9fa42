package syncerror

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/syncassist/syncassist/shared/dlp"
)

// What is kept of a sync error, per data class (DLP's Stored and Display policies):
//   - credentials and keys (AWS keys, PEM keys, tokens, passwords) are never stored: they
//     are redacted before the claim is written;
//   - card numbers are stored as PCI masks (first six, last four), national ids masked;
//   - contact data (e-mail, phone) and IBANs are stored, since a fix may have to write
//     them, and masked in every answer of the API unless the row's fix touches that
//     payload field.
//
// The diagnosis and the write-back work from what is stored.

// Masker applies that policy. A nil Masker (or one without a scanner) keeps records as
// they are, for tests of other behaviour.
type Masker struct {
	Scanner *dlp.Scanner
}

// Store returns r as it may be kept at rest: its message, payload and context under
// dlp.Stored. It fails when a document cannot be scanned; nothing must then be stored.
func (m *Masker) Store(r Record) (Record, error) {
	if m == nil || m.Scanner == nil {
		return r, nil
	}
	res, err := m.Scanner.ScanText(dlp.Stored, r.Message)
	if err != nil {
		return Record{}, fmt.Errorf("mask message: %w", err)
	}
	r.Message = string(res.Output)
	for _, doc := range []*json.RawMessage{&r.Payload, &r.Context} {
		if len(*doc) == 0 {
			continue
		}
		res, err := m.Scanner.ScanJSON(dlp.Stored, *doc)
		if err != nil {
			return Record{}, fmt.Errorf("mask document: %w", err)
		}
		*doc = json.RawMessage(res.Output)
	}
	return r, nil
}

// Show returns r as an API answer may show it: message, payload and context under
// dlp.Display, except the payload's top-level fields that fix writes, which the operator
// must see to judge the fix. A document that cannot be scanned is left out.
func (m *Masker) Show(r Record, fix []FieldChange) Record {
	if m == nil || m.Scanner == nil {
		return r
	}
	if res, err := m.Scanner.ScanText(dlp.Display, r.Message); err == nil {
		r.Message = string(res.Output)
	} else {
		r.Message = ""
	}
	r.Context = m.showDoc(r.Context, nil)
	r.Payload = m.showDoc(r.Payload, fix)
	return r
}

func (m *Masker) showDoc(doc json.RawMessage, fix []FieldChange) json.RawMessage {
	if len(doc) == 0 {
		return doc
	}
	res, err := m.Scanner.ScanJSON(dlp.Display, doc)
	if err != nil {
		return nil
	}
	if len(fix) == 0 || len(res.Findings) == 0 {
		return res.Output
	}
	var orig, shown map[string]json.RawMessage
	if json.Unmarshal(doc, &orig) != nil || json.Unmarshal(res.Output, &shown) != nil {
		return res.Output
	}
	for _, f := range fix {
		if v, ok := orig[f.Path]; ok {
			shown[f.Path] = v
		}
	}
	out, err := json.Marshal(shown)
	if err != nil {
		return res.Output
	}
	return out
}

// SummaryMessage is the message as a listing shows it.
func (m *Masker) SummaryMessage(msg string) string {
	return m.Show(Record{Message: msg}, nil).Message
}

// MaskNote returns a note's text as it may be stored: every finding masked as dlp.Display
// masks it (a note is free text an operator typed, so nothing in it is kept readable), and
// the kinds masked, for the answer and the audit record.
func (m *Masker) MaskNote(text string) (string, []string, error) {
	if m == nil || m.Scanner == nil {
		return text, nil, nil
	}
	res, err := m.Scanner.ScanText(dlp.Display, text)
	if err != nil {
		return "", nil, fmt.Errorf("mask note: %w", err)
	}
	kinds := []string{}
	for k := range res.Counts() {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return string(res.Output), kinds, nil
}

// HistoryNote returns text that carries values a person typed (the edit an approve's
// history entry names) as the row's history may keep it. The history is kept at rest and
// shown as it is to every operator who opens the row, so the text passes both policies:
// dlp.Stored first, which keeps nothing of a credential or key (MaskNote's display form
// keeps four characters at each end of an AWS key, a JWT, a ghp_ or sk_live_ token) and a
// card number only as its PCI mask; then dlp.Display over what Stored keeps readable for a
// fix's sake (e-mail, phone, IBAN), as an answer shows the stored record's.
func (m *Masker) HistoryNote(text string) (string, error) {
	if m == nil || m.Scanner == nil {
		return text, nil
	}
	stored, err := m.Scanner.ScanText(dlp.Stored, text)
	if err != nil {
		return "", fmt.Errorf("mask history note: %w", err)
	}
	shown, _, err := m.MaskNote(string(stored.Output))
	return shown, err
}
