package toolcatalog

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Type classes field types are read into; systems spell types many ways.
const (
	typeString   = "string"
	typeNumber   = "number"
	typeInteger  = "integer"
	typeBoolean  = "boolean"
	typeDate     = "date"
	typeDateTime = "datetime"
	typeEmail    = "email"
	typePhone    = "phone"
	typeURL      = "url"
	typeEnum     = "enum"
	typeID       = "id"
	typeObject   = "object"
	typeArray    = "array"
	typeUnknown  = "unknown"
)

var typeAliases = map[string]string{
	"string": typeString, "text": typeString, "varchar": typeString, "char": typeString, "str": typeString,
	"textarea": typeString, "nvarchar": typeString, "longtext": typeString, "richtext": typeString, "html": typeString,
	"number": typeNumber, "decimal": typeNumber, "float": typeNumber, "double": typeNumber, "numeric": typeNumber,
	"currency": typeNumber, "money": typeNumber, "amount": typeNumber, "real": typeNumber, "percent": typeNumber,
	"integer": typeInteger, "int": typeInteger, "long": typeInteger, "short": typeInteger, "int32": typeInteger,
	"int64": typeInteger, "bigint": typeInteger, "smallint": typeInteger,
	"boolean": typeBoolean, "bool": typeBoolean, "checkbox": typeBoolean, "bit": typeBoolean, "flag": typeBoolean,
	"date": typeDate, "datetime": typeDateTime, "date-time": typeDateTime, "timestamp": typeDateTime,
	"datetimetz": typeDateTime, "time": typeDateTime, "instant": typeDateTime,
	"email": typeEmail, "e-mail": typeEmail, "phone": typePhone, "tel": typePhone, "telephone": typePhone,
	"url": typeURL, "uri": typeURL, "link": typeURL, "hyperlink": typeURL,
	"enum": typeEnum, "picklist": typeEnum, "select": typeEnum, "option": typeEnum, "list": typeEnum,
	"multiselect": typeEnum, "enumeration": typeEnum, "code": typeEnum,
	"id": typeID, "reference": typeID, "ref": typeID, "lookup": typeID, "uuid": typeID, "key": typeID,
	"object": typeObject, "json": typeObject, "map": typeObject, "record": typeObject, "struct": typeObject,
	"array": typeArray,
}

func typeClass(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if c, ok := typeAliases[t]; ok {
		return c
	}
	// "string(255)", "decimal(10,2)", "array<string>"
	if i := strings.IndexAny(t, "(<["); i > 0 {
		if c, ok := typeAliases[t[:i]]; ok {
			return c
		}
	}
	return typeUnknown
}

// stringLike are the classes that travel as JSON strings.
var stringLike = setOf(typeString, typeEnum, typeID, typeEmail, typePhone, typeURL)

// typeCompatibility says how well a value of class a fits a field of class b, 0..1.
func typeCompatibility(a, b string) float64 {
	switch {
	case a == b:
		return 1
	case a == typeUnknown || b == typeUnknown:
		return 0.8
	case a == typeString && stringLike[b] || b == typeString && stringLike[a]:
		return 0.9
	case a == typeEnum && b == typeID || a == typeID && b == typeEnum:
		return 0.85
	case stringLike[a] && stringLike[b]:
		// email into phone and the like: both strings, different things.
		return 0.3
	case (a == typeInteger || a == typeNumber) && (b == typeInteger || b == typeNumber):
		return 0.9
	case (a == typeDate || a == typeDateTime) && (b == typeDate || b == typeDateTime):
		return 0.85
	case (a == typeInteger || a == typeNumber) && b == typeID, a == typeID && (b == typeInteger || b == typeNumber):
		return 0.75
	case (a == typeInteger || a == typeNumber) && stringLike[b], stringLike[a] && (b == typeInteger || b == typeNumber):
		// Numbers travel as strings in many webshop and ERP APIs.
		return 0.6
	case (a == typeDate || a == typeDateTime) && stringLike[b], stringLike[a] && (b == typeDate || b == typeDateTime):
		return 0.65
	case a == typeBoolean && stringLike[b], stringLike[a] && b == typeBoolean:
		return 0.5
	case a == typeBoolean && b == typeInteger, a == typeInteger && b == typeBoolean:
		return 0.5
	case a == typeObject || a == typeArray || b == typeObject || b == typeArray:
		return 0.2
	}
	return 0.25
}

// Sample formats.
const (
	fmtEmail         = "email"
	fmtURL           = "url"
	fmtDate          = "iso_date"
	fmtDateTime      = "iso_datetime"
	fmtCurrency      = "currency_code"
	fmtCountryCode   = "country_code"
	fmtRegionCode    = "region_code"
	fmtCode2         = "two_letter_code" // both a country and a US/CA region code (CA, DE...)
	fmtPhone         = "phone"
	fmtPostal        = "postal_code"
	fmtBool          = "boolean"
	fmtInteger       = "integer"
	fmtDecimal       = "decimal"
	fmtNumericString = "numeric_string"
	fmtDigits        = "digits" // a long digit string: barcode, account or tracking number
	fmtUUID          = "uuid"
	fmtTracking      = "tracking_number"
	fmtCode          = "code" // letters and digits with dashes: SKU-12-BLK, C-000118
	fmtWord          = "word"
	fmtText          = "text"
)

// distinctive formats identify what a field holds on their own, so samples of them may
// suggest a mapping when the names do not, and contradict one when the target expects
// something else.
var distinctive = setOf(fmtEmail, fmtURL, fmtDate, fmtDateTime, fmtCurrency, fmtCountryCode, fmtPhone, fmtBool,
	fmtUUID, fmtTracking)

// rescuing formats are the distinctive ones specific enough to map on samples alone;
// dates and numbers are not (a created date is not a birth date).
var rescuing = setOf(fmtEmail, fmtURL, fmtCurrency, fmtCountryCode, fmtPhone, fmtTracking)

var currencies = setOf("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "PLN",
	"CZK", "HUF", "RON", "BGN", "CNY", "HKD", "SGD", "INR", "BRL", "MXN", "ZAR", "TRY", "AED", "SAR", "ILS",
	"KRW", "TWD", "THB", "MYR", "IDR", "PHP", "VND", "ARS", "CLP", "COP", "PEN", "ISK", "RUB", "UAH", "EGP")

var countries = setOf("US", "CA", "MX", "GB", "IE", "DE", "AT", "CH", "FR", "BE", "NL", "LU", "IT", "ES", "PT",
	"DK", "SE", "NO", "FI", "IS", "PL", "CZ", "SK", "HU", "RO", "BG", "GR", "HR", "SI", "EE", "LV", "LT", "AU",
	"NZ", "JP", "CN", "HK", "SG", "IN", "KR", "TW", "TH", "MY", "ID", "PH", "VN", "BR", "AR", "CL", "CO", "PE",
	"ZA", "AE", "SA", "IL", "TR", "EG", "UA", "USA", "DEU", "GBR", "FRA", "CAN", "NLD", "AUT", "CHE", "ITA",
	"ESP", "BEL", "SWE", "POL", "AUS", "JPN", "CHN", "MEX", "BRA", "IND")

var regions = setOf("AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
	"KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
	"ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC",
	"AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT")

var (
	reEmail    = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$`)
	reURL      = regexp.MustCompile(`^(https?://|www\.)\S+$`)
	reDate     = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{4}|\d{1,2}\.\d{1,2}\.\d{4})$`)
	reUUID     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	rePostalUS = regexp.MustCompile(`^\d{5}(-\d{4})?$`)
	rePostal   = regexp.MustCompile(`^([A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d|[A-Za-z]{1,2}\d[A-Za-z\d]? ?\d[A-Za-z]{2}|\d{4} ?[A-Za-z]{2}|\d{3}-\d{4}|\d{2}-\d{3})$`)
	reTracking = regexp.MustCompile(`^(1Z[0-9A-Z]{16}|9[0-9]{19,21}|[A-Z]{2}[0-9]{9}[A-Z]{2}|JJD[0-9]{15,20})$`)
	reCode     = regexp.MustCompile(`^[A-Za-z0-9]+([-_./][A-Za-z0-9]+)+$|^[A-Za-z]+[0-9]+[A-Za-z0-9]*$|^[0-9]+[A-Za-z]+[A-Za-z0-9]*$`)
	rePhone    = regexp.MustCompile(`^\+?[0-9 ().\-/]{7,24}$`)
)

// formatOf reads what one sample value looks like.
func formatOf(v any) string {
	switch val := v.(type) {
	case bool:
		return fmtBool
	case json.Number:
		// Only the format is read here, so float64's rounding does not matter.
		f, err := val.Float64()
		if err != nil {
			return fmtDecimal
		}
		return formatOf(f)
	case float64:
		if val == math.Trunc(val) && math.Abs(val) < 1e15 {
			return fmtInteger
		}
		return fmtDecimal
	case string:
		return stringFormat(strings.TrimSpace(val))
	}
	return ""
}

func stringFormat(s string) string {
	if s == "" {
		return ""
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "y", "n":
		return fmtBool
	}
	switch {
	case reEmail.MatchString(s):
		return fmtEmail
	case reURL.MatchString(s):
		return fmtURL
	case reDate.MatchString(s):
		return fmtDate
	case isDateTime(s):
		return fmtDateTime
	case reUUID.MatchString(s):
		return fmtUUID
	case len(s) == 3 && currencies[s]:
		return fmtCurrency
	case len(s) == 2 && isUpperASCII(s):
		switch c, r := countries[s], regions[s]; {
		case c && r:
			return fmtCode2
		case c:
			return fmtCountryCode
		case r:
			return fmtRegionCode
		}
	case len(s) == 3 && isUpperASCII(s) && countries[s]:
		return fmtCountryCode
	case reTracking.MatchString(s) && !rePostalUS.MatchString(s):
		return fmtTracking
	case rePostalUS.MatchString(s) || rePostal.MatchString(s):
		return fmtPostal
	}
	digits, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case !strings.ContainsRune(" +().-/", r):
			other++
		}
	}
	if other == 0 && digits >= 7 && digits <= 15 && (s[0] == '+' || strings.ContainsAny(s, " ()-.")) && rePhone.MatchString(s) {
		return fmtPhone
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		if digits >= 10 && other == 0 && !strings.ContainsAny(s, ".-+") {
			return fmtDigits
		}
		return fmtNumericString
	}
	if reCode.MatchString(s) {
		return fmtCode
	}
	if strings.ContainsAny(s, " \t\n") {
		return fmtText
	}
	return fmtWord
}

func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func isDateTime(s string) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04",
		"2006-01-02T15:04"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// sampleFormat is the dominant format of a field's samples: the format of at least 60% of
// its non-empty values.
type sampleFormat struct {
	format  string
	matched int
	seen    int
}

func dominantFormat(values []any) sampleFormat {
	counts := map[string]int{}
	seen := 0
	for _, v := range values {
		f := formatOf(v)
		if f == "" {
			continue
		}
		seen++
		counts[f]++
	}
	best := sampleFormat{seen: seen}
	for f, n := range counts {
		if n > best.matched || n == best.matched && f < best.format {
			best.format, best.matched = f, n
		}
	}
	if seen == 0 || float64(best.matched) < 0.6*float64(seen) {
		return sampleFormat{seen: seen}
	}
	return best
}

// formatWords names formats in reasoning.
var formatWords = map[string]string{
	fmtEmail: "email addresses", fmtURL: "URLs", fmtDate: "ISO dates", fmtDateTime: "ISO date-times",
	fmtCurrency: "ISO 4217 currency codes", fmtCountryCode: "ISO country codes", fmtRegionCode: "state or province codes",
	fmtCode2: "two-letter codes", fmtPhone: "phone numbers", fmtPostal: "postal codes", fmtBool: "booleans",
	fmtInteger: "whole numbers", fmtDecimal: "decimal numbers", fmtNumericString: "numbers written as text",
	fmtDigits: "long digit strings", fmtUUID: "UUIDs", fmtTracking: "tracking numbers", fmtCode: "codes",
	fmtWord: "single words", fmtText: "free text",
}

// typeAccepts are the sample formats a field of a type class holds; nil means the type
// says nothing.
var typeAccepts = map[string][]string{
	typeEmail:    {fmtEmail},
	typePhone:    {fmtPhone, fmtDigits},
	typeURL:      {fmtURL},
	typeDate:     {fmtDate, fmtDateTime},
	typeDateTime: {fmtDateTime, fmtDate},
	typeNumber:   {fmtDecimal, fmtInteger, fmtNumericString},
	typeInteger:  {fmtInteger, fmtNumericString},
	typeBoolean:  {fmtBool},
}
