package dlp

import (
	"strings"
	"unicode/utf8"
)

// sample masks a value for Finding.Sample. It shows at most four characters at each end,
// enough for an operator to recognise "the Visa ending 1111" or "the AKIA key ending MPLE"
// and too little to use. Passwords show nothing at all, not even their length.
func sample(k kind, v string) string {
	switch k {
	case kindPasswordField, kindURLPassword:
		return "********"
	case kindCard, kindIBAN:
		return maskEdges(alnumOnly(v))
	case kindSSN:
		d := alnumOnly(v)
		return "*****" + d[len(d)-4:]
	case kindPhone:
		d := alnumOnly(v)
		keep := 4
		if len(d) < 10 {
			keep = 2
		}
		return strings.Repeat("*", min(len(d)-keep, 12)) + d[len(d)-keep:]
	case kindEmail:
		return maskEmail(v)
	}
	return maskEdges(v)
}

// storedForm is what Stored keeps of a value: contact data and IBANs as they are, a card
// number as its PCI mask (the first six and last four digits), a national id as its
// sample, and nothing of a credential or key.
func storedForm(k kind, v string) string {
	switch k {
	case kindEmail, kindPhone, kindIBAN:
		return v
	case kindCard:
		d := alnumOnly(v)
		return d[:6] + strings.Repeat("*", len(d)-10) + d[len(d)-4:]
	case kindSSN:
		return sample(k, v)
	}
	return "[REDACTED:" + kinds[k].label + "]"
}

// maskEdges keeps four characters at each end of long values, two of medium ones and none
// of short ones, so a sample never reveals most of a value.
func maskEdges(v string) string {
	n := utf8.RuneCountInString(v)
	keep := 0
	switch {
	case n >= 16:
		keep = 4
	case n >= 10:
		keep = 2
	}
	i, j := 0, len(v)
	for range keep {
		_, size := utf8.DecodeRuneInString(v[i:])
		i += size
		_, size = utf8.DecodeLastRuneInString(v[:j])
		j -= size
	}
	return v[:i] + strings.Repeat("*", min(n-2*keep, 16)) + v[j:]
}

func maskEmail(v string) string {
	at := strings.LastIndexByte(v, '@')
	local, domain := v[:at], v[at+1:]
	tld := ""
	if dot := strings.LastIndexByte(domain, '.'); dot >= 0 {
		tld = domain[dot:]
		domain = domain[:dot]
	}
	if len(tld) > 5 {
		tld = ".***"
	}
	return local[:1] + "***@" + domain[:1] + "***" + tld
}

func alnumOnly(v string) string {
	b := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if c := v[i]; isAlnum(c) {
			if isLower(c) {
				c -= 'a' - 'A'
			}
			b = append(b, c)
		}
	}
	return string(b)
}

// normalize maps the spellings of one value to one key, so "4111 1111 1111 1111" and
// "4111111111111111", or "Jane@Example.com" and "jane@example.com", share a placeholder.
func normalize(k kind, v string) string {
	switch k {
	case kindCard, kindIBAN, kindSSN, kindPhone:
		return alnumOnly(v)
	case kindEmail:
		return strings.ToLower(v)
	}
	return v
}
