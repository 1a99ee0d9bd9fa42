package dlp

// luhn reports whether the digits pass the Luhn check that card numbers carry.
func luhn(d []byte) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// gs1 reports whether the digits carry a valid GS1 check digit (GTIN-8/12/13/14, SSCC).
// GS1 weights 3 and 1 from the right, which is not Luhn, but one in ten GS1 codes passes
// Luhn by chance; those must not become cards.
func gs1(d []byte) bool {
	sum := 0
	for i, w := len(d)-2, 3; i >= 0; i, w = i-1, 4-w {
		sum += int(d[i]-'0') * w
	}
	return (10-sum%10)%10 == int(d[len(d)-1]-'0')
}

// cardBrand reports whether the digits start with an issuer range (IIN) that issues cards
// of this length.
func cardBrand(d []byte) bool {
	n := len(d)
	num := func(k int) int {
		v := 0
		for _, c := range d[:k] {
			v = v*10 + int(c-'0')
		}
		return v
	}
	p2, p3, p4, p6 := num(2), num(3), num(4), num(6)
	between := func(lo, hi int) bool { return n >= lo && n <= hi }
	switch {
	case d[0] == '4': // Visa
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return n == 16
	case p2 == 34 || p2 == 37: // American Express
		return n == 15
	case p4 == 6011, p3 >= 644 && p3 <= 649, p2 == 65, p6 >= 622126 && p6 <= 622925: // Discover
		return between(16, 19)
	case p4 >= 3528 && p4 <= 3589: // JCB
		return between(16, 19)
	case p3 >= 300 && p3 <= 305, p4 == 3095, p2 == 36, p2 == 38, p2 == 39: // Diners Club
		return between(14, 19)
	case p4 >= 2200 && p4 <= 2204: // Mir
		return between(16, 19)
	case p2 == 62: // UnionPay
		return between(16, 19)
	case p4 == 5018, p4 == 5020, p4 == 5038, p4 == 5893, p4 == 6304, p4 == 6759,
		p4 >= 6761 && p4 <= 6763: // Maestro
		return between(13, 19)
	case p2 == 60, p4 == 9792: // RuPay, Troy
		return n == 16
	}
	return false
}

// ibanLengths lists IBAN countries and lengths (SWIFT IBAN registry) as "CCnn" entries. A
// string scanned on the rare candidate beats a map built at every cold start.
const ibanLengths = "AD24AE23AL28AT20AZ28BA20BE16BG22BH22BI27BR29BY28CH21CR22CY28CZ24DE22DJ27" +
	"DK18DO28EE20EG29ES24FI18FK18FO18FR27GB22GE22GI23GL18GR27GT28HR21HU28IE22IL23IQ23IS26" +
	"IT27JO30KW30KZ20LB28LC32LI21LT20LU20LV21LY25MC27MD24ME22MK19MN20MR27MT31MU30NI28NL18" +
	"NO15OM23PK24PL28PS29PT25QA29RO24RS22RU33SA24SC31SD18SE24SI19SK24SM27SO23ST25SV28TL23" +
	"TN24TR26UA29VA22VG24XK20YE30"

func ibanLength(c0, c1 byte) int {
	for i := 0; i+4 <= len(ibanLengths); i += 4 {
		if ibanLengths[i] == c0 && ibanLengths[i+1] == c1 {
			return int(ibanLengths[i+2]-'0')*10 + int(ibanLengths[i+3]-'0')
		}
	}
	return 0
}

// ibanValid checks the ISO 13616 mod-97 of an upper-case, separator-free IBAN.
func ibanValid(s []byte) bool {
	rem := 0
	for i := 0; i < len(s); i++ {
		c := s[(i+4)%len(s)] // country and check digits move to the end
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// ssnValid applies the SSA's rules: area not 000, 666 or 900–999, group not 00, serial not
// 0000.
func ssnValid(d []byte) bool {
	area := string(d[0:3])
	if area == "000" || area == "666" || d[0] == '9' {
		return false
	}
	return string(d[3:5]) != "00" && string(d[5:9]) != "0000"
}
