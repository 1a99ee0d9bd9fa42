package dlp

// digitsAt examines the digit groups starting at v[i]: card numbers, SSNs, phone numbers.
func digitsAt(v string, i int, sc *scope) (span, bool, int) {
	n := len(v)
	var g [12][2]int // groups of digits, single ' ' or '-' between them
	m := 0
	var sep byte
	j := i
	for {
		s := j
		for j < n && isDigit(v[j]) {
			j++
		}
		g[m] = [2]int{s, j}
		m++
		if m == len(g) || j+1 >= n {
			break
		}
		if c := v[j]; (c == ' ' || c == '-') && (sep == 0 || c == sep) && isDigit(v[j+1]) {
			sep = c
			j++
			continue
		}
		break
	}
	end := g[m-1][1]
	// Digits right after "12." or "1," are the fraction or thousands of an amount (and
	// after a placeholder's "]," as well, as they were after the digits it replaced).
	if i >= 2 && (v[i-1] == '.' || v[i-1] == ',') && (isDigit(v[i-2]) || v[i-2] == ']') {
		return span{}, false, end
	}
	// A group glued to letters belongs to an identifier (a hex digest, a SKU); one followed
	// by ".5" or ",00" belongs to an amount, unless those digits start an e-mail address
	// ("0001,0@x.io" is no amount); one that runs on into an '@' is the start of an address
	// ("001 01 0001 0@x.io": a second scan sees "[EMAIL_1]" there, not a fourth group).
	if end < n && (isLetter(v[end]) || v[end] == '_' ||
		end+1 < n && (v[end] == '.' || v[end] == ',') && isDigit(v[end+1]) && !emailLocalUpTo(v, end+1) ||
		emailLocalUpTo(v, end)) {
		m--
	}
	if m == 0 {
		return span{}, false, end
	}
	limit := n // how far a phone number may reach
	if sp, ok := cardIn(v, g[:m], sep, sc); ok {
		if sp.start == i {
			return sp, true, sp.end
		}
		// "phone 0301234 4111111111111111": the groups before the card are examined on
		// their own, and the card is found again from its own first digit, exactly as a
		// second scan would see them with the card replaced.
		for m > 0 && g[m-1][0] >= sp.start {
			m--
		}
		end, limit = sp.start, sp.start
	}
	if sp, ok := ssnIn(v, g[:m], sep, sc); ok {
		return sp, true, sp.end
	}
	digits := 0
	for _, x := range g[:m] {
		digits += x[1] - x[0]
	}
	if digits >= 7 && (sc.fc&ctxPhone != 0 || sc.keywordBefore(v, i, 24, phoneWords)) {
		if sp, ok, next := phoneUpTo(v, i, limit, sc); ok {
			return sp, true, next
		}
	}
	return span{}, false, end
}

// emailLocalUpTo reports whether v[i:] continues an e-mail address's local part up to its
// '@'.
func emailLocalUpTo(v string, i int) bool {
	for k := i; k < len(v) && k-i <= 64; k++ {
		if v[k] == '@' {
			return true
		}
		if !isEmailLocal(v[k]) {
			return false
		}
	}
	return false
}

func cardIn(v string, g [][2]int, sep byte, sc *scope) (span, bool) {
	if sc.fc&ctxNotCard != 0 && sc.fc&ctxCard == 0 {
		return span{}, false
	}
	total := 0
	for _, x := range g {
		total += x[1] - x[0]
	}
	if total < 13 {
		return span{}, false
	}
	var d [19]byte
	for s := 0; s < len(g); s++ {
		for e := len(g); e > s; e-- {
			cnt := 0
			for _, x := range g[s:e] {
				cnt += x[1] - x[0]
			}
			if cnt < 13 {
				break
			}
			if cnt > 19 || !cardGrouping(g[s:e]) {
				continue
			}
			k := 0
			for _, x := range g[s:e] {
				k += copy(d[k:], v[x[0]:x[1]])
			}
			digits := d[:k]
			if !cardBrand(digits) || !luhn(digits) {
				continue
			}
			start := g[s][0]
			ctx := sc.fc&ctxCard != 0 || sc.keywordBefore(v, start, 32, cardWords)
			// 13, 14 and 18 digits are also GTIN-13, GTIN-14 and SSCC lengths: a number
			// that carries a valid GS1 check digit is a barcode unless something says card.
			if (k == 13 || k == 14 || k == 18) && gs1(digits) && !ctx {
				continue
			}
			conf := 0.95
			if ctx {
				conf = 0.99
			}
			return span{start, g[e-1][1], kindCard, conf}, true
		}
	}
	return span{}, false
}

// cardGrouping accepts how cards are printed: one run, groups of four (the last may be
// shorter), or the 4-6-5 and 4-6-4 layouts of Amex and Diners. It keeps UUID-like and
// date-like digit groups from being read as cards.
func cardGrouping(g [][2]int) bool {
	if len(g) == 1 {
		return true
	}
	l := func(k int) int { return g[k][1] - g[k][0] }
	if len(g) == 3 && l(0) == 4 && l(1) == 6 && (l(2) == 5 || l(2) == 4) {
		return true
	}
	for k := 0; k < len(g)-1; k++ {
		if l(k) != 4 {
			return false
		}
	}
	return l(len(g)-1) <= 4
}

func ssnIn(v string, g [][2]int, sep byte, sc *scope) (span, bool) {
	var d [9]byte
	k := 0
	for _, x := range g {
		if k+x[1]-x[0] > 9 {
			return span{}, false
		}
		k += copy(d[k:], v[x[0]:x[1]])
	}
	if k != 9 {
		return span{}, false
	}
	shaped := len(g) == 3 && g[0][1]-g[0][0] == 3 && g[1][1]-g[1][0] == 2
	if !(len(g) == 1 || shaped) || !ssnValid(d[:]) {
		return span{}, false
	}
	sp := span{g[0][0], g[len(g)-1][1], kindSSN, 0.9}
	if sc.fc&ctxSSN != 0 || sc.keywordBefore(v, sp.start, 40, ssnWords) {
		return sp, true
	}
	// Only the dashed 3-2-4 form stands on its own; nine plain digits are an id until
	// something says otherwise.
	if shaped && sep == '-' {
		sp.conf = 0.6
		return sp, true
	}
	return span{}, false
}

// phoneAt parses a phone number starting at v[i]: '+', '(' or a digit. Without a '+' it
// needs context (the field name or a nearby word), because an ERP record is full of
// ten-digit numbers that are ids.
func phoneAt(v string, i int, sc *scope) (span, bool, int) {
	return phoneUpTo(v, i, len(v), sc)
}

// phoneUpTo is phoneAt for a number that must end before v[limit].
func phoneUpTo(v string, i, limit int, sc *scope) (span, bool, int) {
	n := limit
	if gluedBefore(v, i) {
		return span{}, false, i + 1
	}
	plus := v[i] == '+'
	j := i
	if plus {
		j++
		if j >= n || !isDigit(v[j]) || v[j] == '0' {
			return span{}, false, i + 1
		}
	}
	digits, end, seps := 0, -1, 0
	sepDigits, sepEnd := 0, -1 // the number up to the last separator
	for j < n {
		c := v[j]
		if isDigit(c) {
			if digits++; digits > 15 {
				// "+1 415 555 2671 4111111111111111": too long for one number, so the
				// phone ends before the group that overflows.
				if sepEnd < 0 {
					return span{}, false, j
				}
				digits, end = sepDigits, sepEnd
				break
			}
			j++
			end, seps = j, 0
			continue
		}
		if c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')' {
			if seps == 0 {
				sepDigits, sepEnd = digits, j
			}
			if seps++; seps > 2 {
				break
			}
			j++
			continue
		}
		break
	}
	if end < 0 {
		return span{}, false, i + 1
	}
	if end < n && (isLetter(v[end]) || v[end] == '_') {
		// "+1 415 555 2671 0A@example.com": the last group is glued to a word, so it is
		// part of that word and the phone ends before it. A second scan, where the word
		// has become "[EMAIL_1]", must find the same phone.
		if sepEnd < 0 {
			return span{}, false, end
		}
		digits, end = sepDigits, sepEnd
	}
	minDigits := 7
	if plus {
		minDigits = 8
	}
	if digits < minDigits || dateLike(v[i:end]) {
		return span{}, false, end
	}
	conf := 0.7
	switch {
	case sc.fc&ctxPhone != 0:
		conf = 0.9
	case sc.keywordBefore(v, i, 24, phoneWords):
		conf = 0.85
	case !plus:
		return span{}, false, end
	}
	return span{i, end, kindPhone, conf}, true, end
}

// dateLike reports digit groups shaped like a date (2026-11-22, 22.11.2026, 11/22/2026).
func dateLike(s string) bool {
	var lens [4]int
	k, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			cur++
			continue
		}
		if s[i] != '-' && s[i] != '.' && s[i] != '/' || k == 3 {
			return false
		}
		lens[k] = cur
		k++
		cur = 0
	}
	lens[k] = cur
	k++
	if k != 3 {
		return false
	}
	return lens[0] == 4 && lens[1] <= 2 && lens[2] <= 2 ||
		lens[0] <= 2 && lens[1] <= 2 && (lens[2] == 4 || lens[2] == 2)
}
