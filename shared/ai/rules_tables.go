package ai

import (
	"strings"
)

// country is one ISO 3166-1 entry with the calling code E.164 numbers start with.
type country struct {
	alpha2, alpha3 string
	calling        string
	// names are lower-case English, native and common alternative names.
	names []string
}

// countries covers the countries ERP, CRM and shipping data of the service's customers
// mostly name; extend it rather than guessing.
var countries = []country{
	{"US", "USA", "1", []string{"united states", "united states of america", "usa", "u.s.a.", "u.s.", "america", "vereinigte staaten", "estados unidos", "etats-unis", "états-unis"}},
	{"CA", "CAN", "1", []string{"canada", "kanada"}},
	{"MX", "MEX", "52", []string{"mexico", "méxico", "mexiko"}},
	{"BR", "BRA", "55", []string{"brazil", "brasil", "brasilien"}},
	{"AR", "ARG", "54", []string{"argentina", "argentinien"}},
	{"CL", "CHL", "56", []string{"chile"}},
	{"CO", "COL", "57", []string{"colombia", "kolumbien"}},
	{"PE", "PER", "51", []string{"peru", "perú"}},
	{"GB", "GBR", "44", []string{"united kingdom", "uk", "u.k.", "great britain", "britain", "england", "scotland", "wales", "northern ireland", "united kingdom of great britain and northern ireland", "vereinigtes königreich", "großbritannien", "grossbritannien", "royaume-uni", "reino unido"}},
	{"IE", "IRL", "353", []string{"ireland", "republic of ireland", "éire", "eire", "irland", "irlande"}},
	{"DE", "DEU", "49", []string{"germany", "deutschland", "federal republic of germany", "bundesrepublik deutschland", "allemagne", "alemania", "germania", "duitsland", "niemcy"}},
	{"AT", "AUT", "43", []string{"austria", "österreich", "oesterreich", "osterreich", "autriche"}},
	{"CH", "CHE", "41", []string{"switzerland", "schweiz", "suisse", "svizzera", "svizra", "suiza"}},
	{"FR", "FRA", "33", []string{"france", "frankreich", "francia", "frankrijk"}},
	{"BE", "BEL", "32", []string{"belgium", "belgië", "belgie", "belgique", "belgien", "bélgica"}},
	{"NL", "NLD", "31", []string{"netherlands", "the netherlands", "nederland", "holland", "niederlande", "pays-bas", "países bajos"}},
	{"LU", "LUX", "352", []string{"luxembourg", "luxemburg", "lëtzebuerg"}},
	{"ES", "ESP", "34", []string{"spain", "españa", "espana", "spanien", "espagne", "spagna"}},
	{"PT", "PRT", "351", []string{"portugal"}},
	{"IT", "ITA", "39", []string{"italy", "italia", "italien", "italie"}},
	{"DK", "DNK", "45", []string{"denmark", "danmark", "dänemark", "daenemark"}},
	{"SE", "SWE", "46", []string{"sweden", "sverige", "schweden", "suède"}},
	{"NO", "NOR", "47", []string{"norway", "norge", "noreg", "norwegen"}},
	{"FI", "FIN", "358", []string{"finland", "suomi", "finnland"}},
	{"IS", "ISL", "354", []string{"iceland", "ísland", "island"}},
	{"PL", "POL", "48", []string{"poland", "polska", "polen", "pologne"}},
	{"CZ", "CZE", "420", []string{"czech republic", "czechia", "česko", "cesko", "česká republika", "ceska republika", "tschechien"}},
	{"SK", "SVK", "421", []string{"slovakia", "slovensko", "slowakei"}},
	{"HU", "HUN", "36", []string{"hungary", "magyarország", "magyarorszag", "ungarn"}},
	{"RO", "ROU", "40", []string{"romania", "românia", "rumänien"}},
	{"BG", "BGR", "359", []string{"bulgaria", "българия", "bulgarien"}},
	{"GR", "GRC", "30", []string{"greece", "ελλάδα", "hellas", "griechenland"}},
	{"HR", "HRV", "385", []string{"croatia", "hrvatska", "kroatien"}},
	{"SI", "SVN", "386", []string{"slovenia", "slovenija", "slowenien"}},
	{"RS", "SRB", "381", []string{"serbia", "srbija", "serbien"}},
	{"UA", "UKR", "380", []string{"ukraine", "україна", "ukraina"}},
	{"TR", "TUR", "90", []string{"turkey", "türkiye", "turkiye", "türkei"}},
	{"RU", "RUS", "7", []string{"russia", "russian federation", "россия", "russland"}},
	{"EE", "EST", "372", []string{"estonia", "eesti", "estland"}},
	{"LV", "LVA", "371", []string{"latvia", "latvija", "lettland"}},
	{"LT", "LTU", "370", []string{"lithuania", "lietuva", "litauen"}},
	{"IL", "ISR", "972", []string{"israel"}},
	{"AE", "ARE", "971", []string{"united arab emirates", "uae", "u.a.e.", "emirates"}},
	{"SA", "SAU", "966", []string{"saudi arabia", "kingdom of saudi arabia"}},
	{"EG", "EGY", "20", []string{"egypt", "ägypten"}},
	{"ZA", "ZAF", "27", []string{"south africa", "südafrika", "suid-afrika"}},
	{"NG", "NGA", "234", []string{"nigeria"}},
	{"KE", "KEN", "254", []string{"kenya"}},
	{"MA", "MAR", "212", []string{"morocco", "maroc", "marokko"}},
	{"IN", "IND", "91", []string{"india", "bharat", "indien"}},
	{"PK", "PAK", "92", []string{"pakistan"}},
	{"BD", "BGD", "880", []string{"bangladesh"}},
	{"CN", "CHN", "86", []string{"china", "people's republic of china", "prc", "中国", "volksrepublik china"}},
	{"HK", "HKG", "852", []string{"hong kong", "hongkong"}},
	{"TW", "TWN", "886", []string{"taiwan"}},
	{"JP", "JPN", "81", []string{"japan", "nippon", "日本", "japon"}},
	{"KR", "KOR", "82", []string{"south korea", "korea", "republic of korea", "korea, republic of", "대한민국", "südkorea"}},
	{"SG", "SGP", "65", []string{"singapore", "singapur"}},
	{"MY", "MYS", "60", []string{"malaysia"}},
	{"TH", "THA", "66", []string{"thailand"}},
	{"VN", "VNM", "84", []string{"vietnam", "viet nam"}},
	{"ID", "IDN", "62", []string{"indonesia", "indonesien"}},
	{"PH", "PHL", "63", []string{"philippines", "philippinen"}},
	{"AU", "AUS", "61", []string{"australia", "australien"}},
	{"NZ", "NZL", "64", []string{"new zealand", "aotearoa", "neuseeland"}},
}

var (
	countryByName   = map[string]*country{}
	countryByAlpha2 = map[string]*country{}
	countryByAlpha3 = map[string]*country{}
	currencyByName  = map[string]string{}
)

// defaultCurrency is the currency a country's records are usually in, for a missing
// currency that nothing else determines.
var defaultCurrency = map[string]string{
	"US": "USD", "CA": "CAD", "MX": "MXN", "BR": "BRL", "GB": "GBP", "IE": "EUR", "DE": "EUR",
	"AT": "EUR", "CH": "CHF", "FR": "EUR", "BE": "EUR", "NL": "EUR", "LU": "EUR", "ES": "EUR",
	"PT": "EUR", "IT": "EUR", "DK": "DKK", "SE": "SEK", "NO": "NOK", "FI": "EUR", "PL": "PLN",
	"CZ": "CZK", "HU": "HUF", "JP": "JPY", "CN": "CNY", "IN": "INR", "AU": "AUD", "NZ": "NZD",
	"SG": "SGD", "HK": "HKD", "ZA": "ZAR", "AE": "AED",
}

// usStates are the USPS codes of the states, DC and the territories.
var usStates = map[string]string{
	"alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR", "california": "CA",
	"colorado": "CO", "connecticut": "CT", "delaware": "DE", "florida": "FL", "georgia": "GA",
	"hawaii": "HI", "idaho": "ID", "illinois": "IL", "indiana": "IN", "iowa": "IA",
	"kansas": "KS", "kentucky": "KY", "louisiana": "LA", "maine": "ME", "maryland": "MD",
	"massachusetts": "MA", "michigan": "MI", "minnesota": "MN", "mississippi": "MS",
	"missouri": "MO", "montana": "MT", "nebraska": "NE", "nevada": "NV", "new hampshire": "NH",
	"new jersey": "NJ", "new mexico": "NM", "new york": "NY", "north carolina": "NC",
	"north dakota": "ND", "ohio": "OH", "oklahoma": "OK", "oregon": "OR", "pennsylvania": "PA",
	"rhode island": "RI", "south carolina": "SC", "south dakota": "SD", "tennessee": "TN",
	"texas": "TX", "utah": "UT", "vermont": "VT", "virginia": "VA", "washington": "WA",
	"west virginia": "WV", "wisconsin": "WI", "wyoming": "WY",
	"district of columbia": "DC", "washington dc": "DC", "washington d.c.": "DC",
	"puerto rico": "PR", "guam": "GU", "us virgin islands": "VI", "american samoa": "AS",
	"northern mariana islands": "MP",
}

// caProvinces are the Canada Post codes of the provinces and territories.
var caProvinces = map[string]string{
	"alberta": "AB", "british columbia": "BC", "manitoba": "MB", "new brunswick": "NB",
	"newfoundland and labrador": "NL", "newfoundland": "NL", "nova scotia": "NS",
	"ontario": "ON", "prince edward island": "PE", "quebec": "QC", "québec": "QC",
	"saskatchewan": "SK", "northwest territories": "NT", "nunavut": "NU", "yukon": "YT",
}

var usStateCodes, caProvinceCodes = codeSet(usStates), codeSet(caProvinces)

// currencyNames maps symbols and names to ISO 4217 codes. Ambiguous symbols ("$", "kr",
// "¥") are resolved by country in currencyFor.
var currencyNames = map[string]string{
	"€": "EUR", "euro": "EUR", "euros": "EUR", "eur€": "EUR",
	"us$": "USD", "usd$": "USD", "us dollar": "USD", "us dollars": "USD", "u.s. dollar": "USD",
	"£": "GBP", "pound": "GBP", "pounds": "GBP", "pound sterling": "GBP", "sterling": "GBP", "gb£": "GBP",
	"yen": "JPY", "円": "JPY", "yuan": "CNY", "renminbi": "CNY", "rmb": "CNY", "元": "CNY",
	"swiss franc": "CHF", "swiss francs": "CHF", "sfr": "CHF", "fr.": "CHF",
	"c$": "CAD", "ca$": "CAD", "can$": "CAD", "canadian dollar": "CAD", "canadian dollars": "CAD",
	"a$": "AUD", "au$": "AUD", "australian dollar": "AUD", "australian dollars": "AUD",
	"nz$": "NZD", "new zealand dollar": "NZD", "hk$": "HKD", "s$": "SGD",
	"₹": "INR", "rupee": "INR", "rupees": "INR", "indian rupee": "INR",
	"zł": "PLN", "zloty": "PLN", "złoty": "PLN", "r$": "BRL", "real": "BRL", "reais": "BRL",
	"₩": "KRW", "won": "KRW", "₺": "TRY", "lira": "TRY", "kč": "CZK", "koruna": "CZK",
	"ft": "HUF", "forint": "HUF", "rand": "ZAR", "₽": "RUB", "ruble": "RUB", "rouble": "RUB",
	"swedish krona": "SEK", "norwegian krone": "NOK", "danish krone": "DKK",
}

// isoCurrencies are the ISO 4217 codes a lower-case or padded code may be normalised to.
var isoCurrencies = setOf("USD", "EUR", "GBP", "JPY", "CNY", "CHF", "CAD", "AUD", "NZD", "HKD",
	"SGD", "INR", "PLN", "BRL", "KRW", "TRY", "CZK", "HUF", "ZAR", "RUB", "SEK", "NOK", "DKK",
	"MXN", "AED", "SAR", "ILS", "THB", "MYR", "IDR", "PHP", "VND", "TWD", "RON", "BGN", "ISK",
	"ARS", "CLP", "COP", "PEN", "EGP", "NGN", "KES", "MAD", "PKR", "BDT", "UAH")

func init() {
	for i := range countries {
		c := &countries[i]
		countryByAlpha2[c.alpha2] = c
		countryByAlpha3[c.alpha3] = c
		for _, n := range c.names {
			countryByName[foldName(n)] = c
		}
	}
	for n, code := range currencyNames {
		currencyByName[foldName(n)] = code
	}
}

// foldName lower-cases s, collapses spaces and folds accents, so that "Österreich",
// "osterreich" and " ÖSTERREICH " meet.
func foldName(s string) string {
	return accentFolder.Replace(strings.ToLower(strings.Join(strings.Fields(s), " ")))
}

// accentFolder folds the Latin accents of the names in these tables; a full Unicode
// normalisation would be a dependency for a few dozen letters.
var accentFolder = strings.NewReplacer(
	"à", "a", "á", "a", "â", "a", "ã", "a", "ä", "a", "å", "a",
	"ç", "c", "č", "c", "ć", "c",
	"è", "e", "é", "e", "ê", "e", "ë", "e", "ě", "e",
	"ì", "i", "í", "i", "î", "i", "ï", "i",
	"ñ", "n", "ň", "n", "ń", "n",
	"ò", "o", "ó", "o", "ô", "o", "õ", "o", "ö", "o", "ø", "o",
	"ù", "u", "ú", "u", "û", "u", "ü", "u", "ů", "u",
	"ý", "y", "ÿ", "y", "ž", "z", "ź", "z", "ż", "z", "š", "s", "ś", "s", "ř", "r",
	"ł", "l", "ß", "ss",
)

// lookupCountry resolves a name, an alpha-2 or an alpha-3 code in any case.
func lookupCountry(s string) (*country, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, false
	}
	u := strings.ToUpper(t)
	if c, ok := countryByAlpha2[u]; ok && len(t) == 2 {
		return c, true
	}
	if c, ok := countryByAlpha3[u]; ok && len(t) == 3 {
		return c, true
	}
	c, ok := countryByName[foldName(t)]
	return c, ok
}

// lookupRegion resolves a US state or Canadian province name to its code; country (an
// alpha-2 code or "") picks the table, and both are tried when it is unknown.
func lookupRegion(s, country string) (string, bool) {
	name := foldName(strings.TrimSuffix(strings.TrimSpace(s), "."))
	code := strings.ToUpper(strings.TrimSpace(s))
	tables := []struct {
		names map[string]string
		codes map[string]bool
		cc    string
	}{{usStates, usStateCodes, "US"}, {caProvinces, caProvinceCodes, "CA"}}
	for _, t := range tables {
		if country != "" && country != t.cc {
			continue
		}
		if c, ok := t.names[name]; ok {
			return c, true
		}
		if t.codes[code] {
			return code, true
		}
	}
	return "", false
}

// lookupCurrency resolves a symbol, a name or a code in any case; country resolves the
// symbols several currencies share.
func lookupCurrency(s, country string) (code string, ambiguous bool, ok bool) {
	t := foldName(s)
	if c, ok := currencyByName[t]; ok {
		return c, false, true
	}
	if u := strings.ToUpper(t); isoCurrencies[u] {
		return u, false, true
	}
	switch t {
	case "$", "dollar", "dollars":
		switch country {
		case "CA", "AU", "NZ", "HK", "SG", "MX":
			return defaultCurrency[country], true, true
		}
		return "USD", true, true
	case "kr", "kr.", "krona", "krone", "kronor", "kroner":
		switch country {
		case "SE", "NO", "DK", "IS":
			return map[string]string{"SE": "SEK", "NO": "NOK", "DK": "DKK", "IS": "ISK"}[country], true, true
		}
	case "¥":
		switch country {
		case "CN":
			return "CNY", true, true
		case "JP", "":
			return "JPY", true, true
		}
	}
	return "", false, false
}

func codeSet(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, c := range m {
		out[c] = true
	}
	return out
}

func setOf(v ...string) map[string]bool {
	out := map[string]bool{}
	for _, s := range v {
		out[s] = true
	}
	return out
}
