package toolcatalog

import (
	"slices"
	"strings"
	"unicode"
)

// A field name is read as a business concept (postal code, company name, tracking
// number...) plus qualifiers (billing, shipping, line, secondary...). Two fields match
// when they name the same concept with the same qualifiers; "zip" and "postalCode" are
// the same concept, "billToZip" and "shipToPostalCode" are not the same field.

// abbreviations expand a token into the words it stands for, as ERP, CRM and shipping
// schemas abbreviate them.
var abbreviations = map[string][]string{
	"qty": {"quantity"}, "amt": {"amount"}, "nbr": {"number"}, "num": {"number"}, "no": {"number"},
	"addr": {"address"}, "desc": {"description"}, "descr": {"description"}, "tel": {"telephone"},
	"telno": {"telephone"}, "ph": {"phone"}, "mob": {"mobile"}, "cust": {"customer"}, "ref": {"reference"},
	"dt": {"date"}, "ts": {"timestamp"}, "org": {"organization"}, "organisation": {"organization"},
	"acct": {"account"}, "acc": {"account"}, "prod": {"product"}, "pct": {"percent"}, "curr": {"currency"},
	"ccy": {"currency"}, "cur": {"currency"}, "cntry": {"country"}, "ctry": {"country"},
	"dob": {"birth", "date"}, "fname": {"first", "name"}, "lname": {"last", "name"}, "plz": {"postal", "code"},
	"postcode": {"postal", "code"}, "zipcode": {"zip", "code"}, "postalcode": {"postal", "code"},
	"ln": {"line"}, "wt": {"weight"}, "uom": {"unit", "of", "measure"}, "pmt": {"payment"},
	"identifier": {"id"}, "colour": {"color"}, "catalogue": {"catalog"}, "emailaddress": {"email", "address"},
	"telephone": {"telephone"}, "cellphone": {"cell", "phone"}, "trackingno": {"tracking", "number"},
	"utm": {"utm"}, "yr": {"year"}, "mpn": {"manufacturer", "part", "number"}, "mfr": {"manufacturer"}, "mfg": {"manufacturer"}, "ext": {"extension"},
	"inv": {"invoice"}, "po": {"purchase", "order"}, "so": {"sales", "order"}, "whse": {"warehouse"},
	"wh": {"warehouse"}, "loc": {"location"}, "svc": {"service"}, "lvl": {"level"}, "stat": {"status"},
}

// concept is a business meaning and the phrases (token sequences after normalisation)
// that name it.
type concept struct {
	id      string
	phrases []string
	// accepts are the sample formats a field of this concept holds.
	accepts []string
}

var concepts = []concept{
	{"postal_code", []string{"zip", "zip code", "postal code", "postal", "post code", "zip postal code", "postal zip code"}, []string{fmtPostal, fmtInteger, fmtNumericString}},
	{"company_name", []string{"company", "company name", "account name", "organization", "organization name", "business name", "firm", "firm name", "employer", "trading name"}, []string{fmtText, fmtWord}},
	{"phone", []string{"phone", "telephone", "phone number", "telephone number", "landline", "contact number", "tel number", "phone no"}, []string{fmtPhone, fmtDigits}},
	{"mobile", []string{"mobile", "mobile phone", "cell", "cell phone", "mobile number", "cell number", "mobile telephone"}, []string{fmtPhone, fmtDigits}},
	{"fax", []string{"fax", "fax number", "facsimile"}, []string{fmtPhone, fmtDigits}},
	{"email", []string{"email", "email address", "mail", "e mail", "mail address", "electronic mail"}, []string{fmtEmail}},
	{"street", []string{"street", "street address", "address", "address 1", "address line 1", "line 1", "street 1", "street line 1", "address line", "street line", "street name"}, []string{fmtText}},
	{"street2", []string{"address 2", "address line 2", "line 2", "street 2", "street line 2", "suite", "apartment", "address supplement", "address addition"}, []string{fmtText, fmtWord}},
	{"city", []string{"city", "town", "locality", "municipality", "city name"}, []string{fmtText, fmtWord}},
	{"state", []string{"state", "region", "province", "state code", "state province", "province code", "region code", "state or province", "county state", "subdivision", "county"}, []string{fmtRegionCode, fmtCode2, fmtWord, fmtText}},
	{"country", []string{"country", "country code", "country iso", "nation", "country iso code", "iso country", "country name", "country region", "country region code"}, []string{fmtCountryCode, fmtCode2, fmtWord, fmtText}},
	{"amount", []string{"amount", "total", "grand total", "total amount", "order total", "total price", "gross amount", "gross total", "total due", "amount due", "invoice total", "order amount", "total value", "gross value"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"subtotal", []string{"subtotal", "sub total", "subtotal price", "subtotal amount", "net amount", "merchandise total", "item total", "net total", "net value", "goods total"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"tax", []string{"tax", "tax amount", "vat", "vat amount", "sales tax", "tax total", "total tax"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"tax_rate", []string{"tax rate", "vat rate", "tax percent", "tax percentage"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"discount", []string{"discount", "discount amount", "discount total", "rebate", "promotion amount", "total discount"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"shipping_cost", []string{"shipping cost", "shipping amount", "freight", "freight amount", "freight cost", "shipping fee", "delivery fee", "shipping charge", "shipping total", "delivery cost", "shipping price", "postage", "freight charge", "shipment cost", "shipment amount", "shipment charge"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"sku", []string{"sku", "item number", "product code", "item code", "product number", "part number", "article number", "item sku", "product sku", "seller sku", "stock code", "item id", "material number", "article code", "part code", "merchant sku", "vendor sku"}, []string{fmtCode, fmtWord, fmtDigits}},
	{"gtin", []string{"gtin", "upc", "ean", "barcode", "bar code", "isbn", "upc code", "ean code", "gtin code"}, []string{fmtDigits, fmtInteger, fmtNumericString}},
	{"quantity", []string{"quantity", "units", "quantity ordered", "ordered quantity", "order quantity", "unit count", "pieces", "item count", "number of units", "quantity shipped", "shipped quantity"}, []string{fmtInteger, fmtNumericString, fmtDecimal}},
	{"inventory", []string{"quantity on hand", "on hand", "stock", "inventory", "available quantity", "quantity available", "stock level", "stock quantity", "available", "inventory quantity", "stock on hand", "available stock"}, []string{fmtInteger, fmtNumericString, fmtDecimal}},
	{"first_name", []string{"first name", "given name", "forename", "christian name", "first"}, []string{fmtWord, fmtText}},
	{"last_name", []string{"last name", "surname", "family name", "last"}, []string{fmtWord, fmtText}},
	{"full_name", []string{"full name", "contact name", "person name", "contact person", "attention", "attn", "recipient", "recipient name", "addressee"}, []string{fmtText, fmtWord}},
	{"birth_date", []string{"birth date", "date of birth", "birthday", "birthdate", "born on"}, []string{fmtDate, fmtDateTime}},
	{"tracking", []string{"tracking", "tracking number", "tracking code", "tracking id", "waybill", "waybill number", "awb", "air waybill", "shipment tracking", "tracking reference", "consignment number", "parcel number"}, []string{fmtTracking, fmtCode, fmtDigits}},
	{"carrier", []string{"carrier", "carrier code", "carrier name", "shipping carrier", "courier", "shipper", "freight carrier", "carrier id"}, []string{fmtWord, fmtCode, fmtText}},
	{"ship_method", []string{"shipping method", "ship method", "ship via", "shipping service", "service level", "delivery method", "shipping option", "service", "service code", "shipping type", "delivery service", "shipment method", "carrier service", "shipping line", "shipping line title"}, []string{fmtWord, fmtCode, fmtText}},
	{"currency", []string{"currency", "currency code", "currency iso", "currency iso code", "iso currency"}, []string{fmtCurrency}},
	{"order_number", []string{"order number", "order id", "order reference", "purchase order", "purchase order number", "sales order", "sales order number", "order", "order name", "order key", "webshop order", "shop order number", "customer order number", "po number"}, []string{fmtCode, fmtDigits, fmtInteger, fmtWord}},
	{"order_date", []string{"order date", "date created", "created at", "created", "created on", "creation date", "transaction date", "tran date", "placed at", "purchase date", "order placed", "order created", "document date", "order time", "ordered at", "date ordered", "booking date"}, []string{fmtDate, fmtDateTime}},
	{"updated_at", []string{"updated at", "modified at", "last modified", "updated", "date modified", "last updated", "modified", "change date", "last change"}, []string{fmtDate, fmtDateTime}},
	{"price", []string{"price", "unit price", "rate", "list price", "sale price", "price amount", "selling price", "item price", "sales price", "retail price", "price per unit"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"cost", []string{"cost", "unit cost", "purchase price", "standard cost", "cost price", "average cost", "landed cost"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"description", []string{"description", "details", "long description", "item description", "product description", "body", "body html", "sales description"}, []string{fmtText}},
	{"product_name", []string{"product name", "item name", "product title", "item title", "listing title", "article name", "product label"}, []string{fmtText, fmtWord}},
	{"customer_id", []string{"customer id", "customer number", "customer code", "customer reference", "account number", "account id", "client id", "client number", "debtor number", "customer account", "buyer id", "account code", "customer key"}, []string{fmtCode, fmtDigits, fmtInteger, fmtWord, fmtUUID}},
	{"contact_id", []string{"contact id", "lead id", "person id", "contact number", "prospect id"}, []string{fmtCode, fmtDigits, fmtInteger, fmtWord, fmtUUID}},
	{"vendor_id", []string{"vendor id", "supplier id", "vendor number", "supplier number", "vendor code", "supplier code", "creditor number", "vendor account", "supplier account", "vendor key", "supplier key", "vendor reference"}, []string{fmtCode, fmtDigits, fmtInteger, fmtWord}},
	{"vendor_name", []string{"vendor name", "supplier name", "vendor", "supplier", "vendor company", "supplier company", "creditor name"}, []string{fmtText, fmtWord}},
	{"status", []string{"status", "order status", "fulfillment status", "shipment status", "state status", "financial status", "delivery status", "payment status", "lead status", "record status"}, []string{fmtWord, fmtCode}},
	{"ship_date", []string{"ship date", "shipped at", "shipped date", "shipment date", "fulfillment date", "date shipped", "dispatch date", "dispatched at", "shipped on", "fulfilled at", "pickup date", "fulfillment created at"}, []string{fmtDate, fmtDateTime}},
	{"delivery_date", []string{"delivery date", "delivered at", "estimated delivery", "eta", "expected delivery", "estimated delivery date", "expected delivery date", "promised date", "requested delivery date", "delivery estimate", "estimated arrival"}, []string{fmtDate, fmtDateTime}},
	{"website", []string{"website", "url", "web site", "homepage", "web", "web address", "site url", "domain", "company website", "web url", "home page"}, []string{fmtURL, fmtWord}},
	{"tax_id", []string{"tax id", "vat number", "vat id", "tax number", "ein", "tin", "vat registration number", "tax registration number", "vat reg number", "tax identification number", "vat registration", "fiscal code", "tax code"}, []string{fmtCode, fmtDigits}},
	{"payment_terms", []string{"payment terms", "terms", "payment term", "net terms", "term", "payment condition", "credit terms", "terms code", "terms of payment"}, []string{fmtWord, fmtCode, fmtText}},
	{"job_title", []string{"job title", "position", "role", "job role", "job position", "designation", "function title"}, []string{fmtText, fmtWord}},
	{"lead_source", []string{"lead source", "source", "utm source", "channel", "acquisition channel", "original source", "campaign source", "referral source", "source channel"}, []string{fmtWord, fmtText}},
	{"opt_in", []string{"opt in", "marketing opt in", "email opt in", "subscribed", "newsletter", "consent", "accepts marketing", "email consent", "marketing consent", "newsletter subscription", "subscribe", "accepts email marketing", "email marketing consent", "subscription status", "is subscribed", "has opted in", "marketing permission"}, []string{fmtBool}},
	{"industry", []string{"industry", "sector", "vertical", "business sector", "industry code"}, []string{fmtWord, fmtText}},
	{"employees", []string{"employee count", "employees", "number of employees", "company size", "headcount", "staff count", "num employees"}, []string{fmtInteger, fmtNumericString}},
	{"revenue", []string{"annual revenue", "revenue", "yearly revenue", "turnover", "annual turnover", "annual sales"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"brand", []string{"brand", "manufacturer", "brand name", "make", "manufacturer name", "vendor brand"}, []string{fmtWord, fmtText}},
	{"category", []string{"category", "product category", "item category", "product type", "item type", "category name", "item group", "product group", "merchandise category", "category id", "class", "item class"}, []string{fmtWord, fmtText, fmtCode}},
	{"weight", []string{"weight", "gross weight", "package weight", "shipping weight", "item weight", "net weight", "weight value", "parcel weight", "total weight"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"weight_unit", []string{"weight unit", "weight uom", "unit of weight", "weight unit of measure", "mass unit"}, []string{fmtWord, fmtCode}},
	{"unit", []string{"unit of measure", "unit", "sale unit", "sales unit", "base unit", "stock unit", "measure unit"}, []string{fmtWord, fmtCode}},
	{"length", []string{"length", "package length", "parcel length", "depth"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"width", []string{"width", "package width", "parcel width"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"height", []string{"height", "package height", "parcel height"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"package_count", []string{"package count", "packages", "number of packages", "parcel count", "parcels", "box count", "number of parcels", "package quantity", "piece count", "carton count"}, []string{fmtInteger, fmtNumericString}},
	{"iban", []string{"iban", "bank account", "bank account number", "iban number", "account iban", "bank iban"}, []string{fmtCode, fmtText}},
	{"bic", []string{"bic", "swift", "swift code", "bic swift", "bic code", "swift bic", "bank code", "routing number", "bank identifier"}, []string{fmtCode, fmtWord}},
	{"bank_name", []string{"bank name", "bank", "bank institution", "financial institution"}, []string{fmtText, fmtWord}},
	{"notes", []string{"note", "notes", "comment", "comments", "remark", "remarks", "memo", "internal note", "customer note", "order note"}, []string{fmtText}},
	{"external_id", []string{"external id", "external reference", "source id", "foreign key", "external key", "legacy id", "sync id", "integration id", "shop id"}, []string{fmtCode, fmtDigits, fmtInteger, fmtWord, fmtUUID}},
	{"condition", []string{"condition", "item condition", "product condition", "condition code"}, []string{fmtWord, fmtCode}},
	{"color", []string{"color", "colour name", "color name", "variant color"}, []string{fmtWord}},
	{"size", []string{"size", "variant size", "size code"}, []string{fmtWord, fmtCode}},
	{"image_url", []string{"image", "image url", "picture", "photo", "main image", "image link", "thumbnail", "photo url", "picture url", "main image url"}, []string{fmtURL}},
	{"credit_limit", []string{"credit limit", "credit line", "max credit", "credit amount"}, []string{fmtDecimal, fmtInteger, fmtNumericString}},
	{"customer_group", []string{"customer group", "customer type", "customer category", "customer segment", "segment", "price group", "customer class", "price level", "tier"}, []string{fmtWord, fmtCode}},
	{"warehouse", []string{"warehouse", "location", "warehouse code", "location code", "fulfillment center", "ship from location", "site", "warehouse id", "fulfillment location", "stock location", "inventory location"}, []string{fmtCode, fmtWord}},
	{"is_active", []string{"active", "is active", "enabled", "inactive", "is inactive", "status active", "blocked", "is blocked", "disabled"}, []string{fmtBool}},
	{"score", []string{"score", "lead score", "rating", "lead rating"}, []string{fmtInteger, fmtDecimal, fmtNumericString}},
	{"campaign", []string{"campaign", "campaign name", "utm campaign", "campaign id", "campaign code"}, []string{fmtWord, fmtText, fmtCode}},
	{"line_number", []string{"line number", "line id", "line", "line sequence", "position number", "sequence", "line item number", "item line", "line no"}, []string{fmtInteger, fmtNumericString, fmtCode}},
	{"invoice_number", []string{"invoice number", "invoice id", "invoice reference", "bill number", "invoice"}, []string{fmtCode, fmtDigits, fmtInteger}},
	{"due_date", []string{"due date", "payment due date", "date due", "due on", "due"}, []string{fmtDate, fmtDateTime}},
	{"salutation", []string{"salutation", "prefix", "honorific", "title prefix", "name prefix"}, []string{fmtWord}},
	{"language", []string{"language", "locale", "language code", "preferred language"}, []string{fmtWord, fmtCode}},
	{"lead_time", []string{"lead time", "lead time days", "delivery lead time", "lead days", "handling time", "processing time"}, []string{fmtInteger, fmtNumericString}},
	{"minimum_order", []string{"minimum order quantity", "minimum order", "moq", "min order quantity", "min order", "minimum quantity"}, []string{fmtInteger, fmtNumericString, fmtDecimal}},
	{"username", []string{"username", "user name", "login", "user id", "login name"}, []string{fmtWord, fmtCode, fmtEmail}},
	// Bare words a record uses for its own name or identifier: what they mean depends on
	// the record, so they are concepts of their own, close to each specific meaning.
	{"name", []string{"name", "name 1"}, []string{fmtText, fmtWord}},
	{"title", []string{"title"}, []string{fmtText, fmtWord}},
	{"record_id", []string{"id", "number", "code", "key", "entity id", "record id", "internal id", "record number", "record key", "primary key", "system id"}, []string{fmtCode, fmtDigits, fmtInteger, fmtWord, fmtUUID, fmtNumericString}},
	{"display_name", []string{"display name", "label", "short name", "caption"}, []string{fmtText, fmtWord}},
	{"legal_name", []string{"legal name", "registered name", "legal entity name", "official name"}, []string{fmtText, fmtWord}},
	{"lifecycle_stage", []string{"lifecycle stage", "lifecycle", "funnel stage", "stage", "pipeline stage", "deal stage", "opportunity stage"}, []string{fmtWord, fmtCode}},
	{"opt_out", []string{"opt out", "optout", "opted out", "email opt out", "email optout", "has opted out of email", "opted out of email", "has opted out", "unsubscribed", "do not email", "email opted out", "do not contact", "email unsubscribed", "is unsubscribed"}, []string{fmtBool}},
	{"posting_group", []string{"posting group", "vendor posting group", "customer posting group", "gen bus posting group", "general business posting group", "business posting group", "gen prod posting group", "inventory posting group"}, []string{fmtCode, fmtWord}},
	{"owner", []string{"owner", "account owner", "sales rep", "sales representative", "assigned to", "owner id", "lead owner", "record owner", "salesperson", "account manager"}, []string{fmtWord, fmtText, fmtCode}},
}

// related are concepts close enough that one may stand in for the other when nothing
// closer exists, with how close.
var related = map[[2]string]float64{
	{"carrier", "ship_method"}:         0.72,
	{"phone", "mobile"}:                0.72,
	{"company_name", "full_name"}:      0.5,
	{"company_name", "vendor_name"}:    0.8,
	{"customer_id", "contact_id"}:      0.55,
	{"customer_id", "vendor_id"}:       0.45,
	{"amount", "subtotal"}:             0.45,
	{"price", "cost"}:                  0.4,
	{"price", "amount"}:                0.4,
	{"quantity", "inventory"}:          0.5,
	{"sku", "gtin"}:                    0.4,
	{"order_date", "updated_at"}:       0.3,
	{"ship_date", "delivery_date"}:     0.45,
	{"description", "product_name"}:    0.45,
	{"notes", "description"}:           0.45,
	{"order_number", "external_id"}:    0.6,
	{"customer_id", "external_id"}:     0.5,
	{"tax_id", "vendor_id"}:            0.2,
	{"iban", "bank_name"}:              0.2,
	{"invoice_number", "order_number"}: 0.45,
	{"street", "street2"}:              0.35,
	{"opt_in", "is_active"}:            0.3,
	{"opt_in", "opt_out"}:              0.35,
	{"lifecycle_stage", "status"}:      0.5,
	{"name", "company_name"}:           0.7,
	{"name", "full_name"}:              0.7,
	{"name", "product_name"}:           0.7,
	{"name", "vendor_name"}:            0.7,
	{"name", "display_name"}:           0.75,
	{"name", "legal_name"}:             0.6,
	{"legal_name", "company_name"}:     0.85,
	{"legal_name", "vendor_name"}:      0.8,
	{"display_name", "product_name"}:   0.75,
	{"display_name", "full_name"}:      0.75,
	{"display_name", "company_name"}:   0.6,
	{"title", "product_name"}:          0.75,
	{"title", "job_title"}:             0.75,
	{"title", "salutation"}:            0.4,
	{"record_id", "external_id"}:       0.75,
	{"record_id", "order_number"}:      0.45,
	{"record_id", "customer_id"}:       0.45,
	{"record_id", "vendor_id"}:         0.45,
	{"record_id", "contact_id"}:        0.45,
	{"record_id", "invoice_number"}:    0.45,
	{"record_id", "sku"}:               0.5,
}

func relatedness(a, b string) float64 {
	if v, ok := related[[2]string{a, b}]; ok {
		return v
	}
	return related[[2]string{b, a}]
}

// qualifierClass maps qualifier words to what they distinguish; words not listed are
// qualifiers in their own right.
var qualifierClass = map[string]string{
	"bill": "billing", "billing": "billing", "invoice": "billing", "invoicing": "billing", "payer": "billing",
	"ship": "shipping", "shipping": "shipping", "delivery": "shipping", "deliver": "shipping", "shipment": "shipping",
	"consignee": "shipping", "recipient": "shipping", "destination": "shipping",
	"home": "home", "personal": "home", "private": "home",
	"work": "work", "business": "work", "office": "work", "company": "work",
	"alt": "secondary", "alternate": "secondary", "alternative": "secondary", "secondary": "secondary",
	"other": "secondary", "2": "secondary", "second": "secondary", "additional": "secondary",
	"line": "line", "unit": "unit", "net": "net", "gross": "gross",
	"external": "external", "foreign": "external", "remote": "external", "third": "external", "party": "external",
	"origin": "origin", "from": "origin", "sender": "origin", "shipper": "origin", "return": "return",
	"estimated": "estimated", "actual": "actual", "requested": "requested",
}

// weakWords say nothing that tells two fields of one record apart: "customerEmail" and
// "email" of a customer record are the same field.
var weakWords = setOf("customer", "client", "buyer", "contact", "primary", "main", "default", "the", "of",
	"a", "an", "to", "for", "by", "at", "on", "in", "value", "field", "info", "data", "text", "str", "cf",
	"custom", "c", "x", "std", "standard", "record", "header", "order", "item", "product", "account",
	"person", "user", "lead", "1", "is", "has", "sales", "purchase", "vendor", "supplier", "shop", "store",
	"web", "webshop", "erp", "crm", "system", "current", "new", "field", "attribute", "attr", "col",
	"address", "details", "detail", "document", "doc", "transaction", "tran", "listing", "entity", "party",
	// vendor prefixes of custom and internal properties (HubSpot hs_, Salesforce sfdc_, NetSuite ns_)
	"hs", "sfdc", "ns")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// phraseIndex maps a concept phrase (normalised tokens joined by spaces) to its concept;
// vocabulary holds every word the phrases and qualifiers use, for splitting names written
// without separators ("shiptozipcode").
var (
	phraseIndex   = map[string]string{}
	maxPhraseLen  int
	vocabulary    = map[string]bool{}
	conceptByID   = map[string]*concept{}
	abbrevTargets = map[string]bool{}
)

func init() {
	for abbr, exp := range abbreviations {
		if len(abbr) > 2 {
			vocabulary[abbr] = true
		}
		for _, w := range exp {
			vocabulary[w] = true
			abbrevTargets[w] = true
		}
	}
	for w := range qualifierClass {
		vocabulary[w] = true
	}
	for w := range weakWords {
		if len(w) > 1 {
			vocabulary[w] = true
		}
	}
	for i := range concepts {
		c := &concepts[i]
		conceptByID[c.id] = c
		for _, p := range c.phrases {
			for _, w := range strings.Fields(p) {
				vocabulary[w] = true
				vocabulary[stem(w)] = true
			}
		}
	}
	for i := range concepts {
		for _, p := range concepts[i].phrases {
			toks := normalizeTokens(strings.Fields(p))
			key := strings.Join(toks, " ")
			if _, dup := phraseIndex[key]; !dup {
				phraseIndex[key] = concepts[i].id
			}
			maxPhraseLen = max(maxPhraseLen, len(toks))
		}
	}
}

// splitWords splits a name at separators, lower-to-upper case changes ("shipTo"), the
// end of an acronym ("ZIPCode") and letter/digit changes ("address1"), lower-cased.
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(r):
				flush()
			case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
				flush()
			case unicode.IsDigit(prev) != unicode.IsDigit(r):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// segment splits a word written without separators into known words ("shiptozip" →
// ship, to, zip), preferring the fewest pieces; it returns the word itself when no
// split into known words of at least two letters exists.
func segment(w string) []string {
	if vocabulary[w] || vocabulary[stem(w)] || len(w) < 5 || len(w) > 40 {
		return []string{w}
	}
	n := len(w)
	best := make([][]string, n+1)
	best[0] = []string{}
	for i := 1; i <= n; i++ {
		for j := max(0, i-20); j <= i-2; j++ {
			if best[j] == nil {
				continue
			}
			piece := w[j:i]
			if !vocabulary[piece] && !(len(piece) > 3 && vocabulary[stem(piece)]) {
				continue
			}
			if best[i] == nil || len(best[j])+1 < len(best[i]) {
				best[i] = append(slices.Clone(best[j]), piece)
			}
		}
	}
	if best[n] == nil || len(best[n]) > 4 {
		return []string{w}
	}
	return best[n]
}

// stem removes English plural endings: items → item, addresses → address,
// quantities → quantity; status, address and other words ending in s stay.
func stem(w string) string {
	if len(w) <= 3 || w[len(w)-1] != 's' {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	}
	return w[:len(w)-1]
}

// normalizeTokens expands abbreviations, splits glued words and stems plurals; "e mail"
// becomes "email".
func normalizeTokens(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "e" && i+1 < len(words) && (words[i+1] == "mail" || words[i+1] == "mails") {
			out = append(out, "email")
			i++
			continue
		}
		if exp, ok := abbreviations[w]; ok {
			out = append(out, exp...)
			continue
		}
		for _, piece := range segment(w) {
			if exp, ok := abbreviations[piece]; ok && len(piece) > 2 {
				out = append(out, exp...)
				continue
			}
			out = append(out, stem(piece))
		}
	}
	return out
}

// fieldName is a name read as concept and qualifiers.
type fieldName struct {
	tokens  []string
	concept string
	// phrase is the words that named the concept.
	phrase     []string
	qualifiers []string // strong qualifiers, normalised and sorted
	weak       []string
}

func readName(name string) fieldName {
	return readTokens(normalizeTokens(splitWords(name)))
}

// readTokens finds the longest concept phrase in toks, preferring one at the end (English
// compounds put the head noun last: billing postal code); the rest are qualifiers.
func readTokens(toks []string) fieldName {
	fn := fieldName{tokens: toks}
	bestLen, bestEnd, bestStart := 0, -1, -1
	for i := range toks {
		for j := i + 1; j <= min(len(toks), i+maxPhraseLen); j++ {
			id, ok := phraseIndex[strings.Join(toks[i:j], " ")]
			if !ok {
				continue
			}
			if l := j - i; l > bestLen || l == bestLen && j > bestEnd {
				bestLen, bestEnd, bestStart, fn.concept = l, j, i, id
			}
		}
	}
	rest := toks
	if fn.concept != "" {
		fn.phrase = toks[bestStart:bestEnd]
		rest = append(slices.Clone(toks[:bestStart]), toks[bestEnd:]...)
	}
	quals := map[string]bool{}
	for _, t := range rest {
		switch {
		case weakWords[t]:
			fn.weak = append(fn.weak, t)
		case qualifierClass[t] != "":
			quals[qualifierClass[t]] = true
		default:
			quals[t] = true
		}
	}
	for q := range quals {
		fn.qualifiers = append(fn.qualifiers, q)
	}
	slices.Sort(fn.qualifiers)
	return fn
}

// readDescription looks for a concept in a field's description, for names that say
// nothing ("custom_field_7": "The customer's e-mail address").
func readDescription(desc string) string {
	toks := normalizeTokens(splitWords(desc))
	best, bestLen := "", 0
	for i := range toks {
		for j := i + 1; j <= min(len(toks), i+maxPhraseLen); j++ {
			if id, ok := phraseIndex[strings.Join(toks[i:j], " ")]; ok && j-i > bestLen {
				best, bestLen = id, j-i
			}
		}
	}
	return best
}
