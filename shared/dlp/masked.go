package dlp

import "strings"

// MaskedValue reports whether v holds a mask or placeholder this package writes, anywhere
// in it: what a value looks like after Stored, Display, Record or AIPrompt rewrote it. The
// guard refuses such a value in a connector write, since writing it would replace the
// record's data with its mask ([REDACTED:PASSWORD_FIELD] as a password, *****6789 as an
// SSN). It recognises:
//
//   - a placeholder with one of this package's labels: [REDACTED:EMAIL] (Record, and
//     Stored for credentials) and [EMAIL_1] (AIPrompt), also inside text;
//   - a run of three or more '*' glued to a letter or digit on at least one side: the
//     masks keep edges of the value they hide (a PCI mask 411111******1111, an SSN
//     *****6789, a phone ********0000, samples such as DE89************3000 and
//     j***@e***.com); or standing between a URL's ':' and '@' (a URL password
//     :********@);
//   - a value that is nothing but three or more '*' (a password's sample, a short
//     value's).
//
// The package never writes fewer than three stars (the shortest is a 13-digit card's PCI
// mask), nor a bare "[REDACTED]" or a placeholder with a label of its own, so "*", "**",
// "a*b", "**bold**", "2 * 3", "*** NOTE ***", "rated *****!" (stars beside spaces or
// punctuation), "[REDACTED]" and "[SECTION_1]" are not masks: they may be what someone
// means to write. A password sample standing alone inside prose ("pw ******** here") is
// read as prose, as is a key's sample whose kept edges end in punctuation on both sides;
// only the Display form writes those, and Display is never stored.
func MaskedValue(v string) bool {
	if strings.IndexByte(v, '[') >= 0 && hasDLPPlaceholder(v) {
		return true
	}
	return strings.Contains(v, "***") && hasStarMask(v)
}

// hasDLPPlaceholder reports whether v contains a placeholder with a label of kinds.
func hasDLPPlaceholder(v string) bool {
	for i := strings.IndexByte(v, '['); i >= 0; {
		if n := placeholderLen(v[i:]); n > 0 && knownLabel(placeholderLabel(v[i:i+n])) {
			return true
		}
		j := strings.IndexByte(v[i+1:], '[')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// placeholderLabel is the label of a placeholder: EMAIL of [REDACTED:EMAIL] or [EMAIL_12].
func placeholderLabel(p string) string {
	p = p[1 : len(p)-1]
	if rest, ok := strings.CutPrefix(p, "REDACTED:"); ok {
		return rest
	}
	return p[:strings.LastIndexByte(p, '_')]
}

func knownLabel(label string) bool {
	for _, k := range kinds {
		if k.label == label {
			return true
		}
	}
	return false
}

// hasStarMask reports whether v has a run of three or more '*' glued to a letter or digit
// or between ':' and '@', or is nothing else.
func hasStarMask(v string) bool {
	t := strings.TrimSpace(v)
	if len(t) >= 3 && strings.Trim(t, "*") == "" {
		return true
	}
	for i := 0; i < len(v); {
		if v[i] != '*' {
			i++
			continue
		}
		j := i
		for j < len(v) && v[j] == '*' {
			j++
		}
		if j-i >= 3 && (i > 0 && isAlnum(v[i-1]) || j < len(v) && isAlnum(v[j]) ||
			i > 0 && v[i-1] == ':' && j < len(v) && v[j] == '@') {
			return true
		}
		i = j
	}
	return false
}
