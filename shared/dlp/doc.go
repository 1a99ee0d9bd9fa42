// Package dlp owns scanBeforeSend: the outbound data-loss-prevention scan that every payload
// passes before it reaches an AI provider, a connector write, or an audit, trace or log
// record.
//
// # What it finds
//
// Payment card numbers (13–19 digits, Luhn, known IIN ranges), IBANs (country length and
// mod-97), US social security numbers, email addresses, phone numbers, AWS access key ids and
// secret access keys, PEM private keys, JWTs, bearer tokens, API keys of well-known shapes
// (GitHub, GitLab, Slack, Stripe, Google, Shopify, Square, SendGrid, npm, Mailchimp, OpenAI
// and Anthropic, and the product's own service tokens, see [ServiceTokenPrefix]), passwords in
// URLs, and the values of password-like fields, in JSON and in free text ("Password=…;" in a
// connection string, "?api_key=…" in a URL).
//
// Detectors validate wherever a check exists, and the ones without a check demand context,
// because the payloads are ERP records full of long numbers: order, invoice and customer
// ids, timestamps, barcodes, tracking numbers, amounts. A 9-digit SSN without dashes, a
// phone number without a + prefix and a 40-character AWS secret are only reported when the
// field name or nearby words say what they are. A 13-, 14- or 18-digit number that carries a
// valid GS1 check digit is a barcode (GTIN, SSCC) unless something says card. Field-name
// rules match the last words of a name (clientSecret, db_password, x-api-key,
// aws_secret_access_key, contactPhone), never any name that merely contains "key" or
// "token": idempotencyKey, externalKey, primaryKey and tokenCount stay clean, and a word
// that starts with digits is one word ("1Password", a product, as "1password" is). What a
// name says about an SSN or a card reaches every value under it, in arrays and nested
// objects, and the name or label member of a name/value pair names its value members, in
// whatever order the members come ([{"fieldId": "custentity_ssn", "value": …}]; a name
// after its value is looked for past at most 64 tokens of objects and lists, spaces not
// counted, so a pretty-printed document reads as its compact form). A secret's name does
// too: the value member of the object it names, or of a pair whose name member (name,
// fieldId, scriptId, key) names it, is the secret however short or plain ({"password":
// {"value": "letmein"}}, and "admin" for admin_password or "password" for password: default
// credentials are what people leave in place), and so is a value member of an object that
// value member holds ({"password": {"values": [{"value": "letmein"}]}}). A password's may
// be words ("correct horse battery staple"); a key's, token's, secret's or credentials' is
// one token, and words there describe the credential ("managed by IT"). A setting
// ("enabled") and a short number are not the secret. A label alone ({"label": "Password",
// "value": …}) is a picklist option's (HubSpot, Salesforce) as often as a form field's: its
// value is reported only when it looks like a secret, unless an input member says a secret
// is typed there ("type": "password"), and a value that is the label's own words, in any
// case and with any separators ("PASSWORD", "client_secret" for "Client Secret"), is an
// option. A plain password in a form labelled only ("letmein", or "password" itself) is
// given up for that: an accepted limit. Any other value under the name is reported only
// when it looks like a secret (no spaces, letters with digits or symbols, not a number,
// time, URL or address), members that describe the credential (id, type, tokenUrl,
// expiresAt) are skipped, and an object under "authorization" (a payment's, a return's)
// inherits nothing. That rule's absence is what makes a generic secret scanner flag every
// idempotency key of an ERP payload, and spend milliseconds doing it.
//
// # Policies
//
//   - [AIPrompt]: every finding is replaced by a typed placeholder ([EMAIL_1],
//     [CARD_NUMBER_2]). One value gets one placeholder throughout a scan, whatever its
//     spelling ("4111 1111 1111 1111" and 4111111111111111, Jane@Example.com and
//     jane@example.com), so a model can still see that two records share an email address
//     without seeing the address.
//   - [Record]: every finding is replaced by [REDACTED:EMAIL] and the like. Audit rows,
//     traces and logs have no use for correlating values.
//   - [ConnectorWrite]: the document is never rewritten (a connector writes what was
//     approved or nothing); the scan blocks instead. It blocks secrets (keys, tokens,
//     passwords, private keys, JWTs), payment card numbers and US SSNs, and lets email
//     addresses, phone numbers, postal addresses and IBANs through: they are the master data
//     that the ERP, CRM, marketing and shipping systems own and that a sync fix exists to
//     correct, and IBANs are routine on customer and vendor records (SEPA mandates,
//     remittance). SSNs are blocked because none of the five target systems needs one in an
//     order, invoice, customer or shipment, and a sync fix must not spread one further; a US
//     vendor record that really carries a taxpayer id has to be written outside the AI fix
//     path. When two findings overlap, a blocking type wins, so a password that contains an
//     email address still blocks. A blocked result has no Output, so it cannot be sent by
//     mistake.
//
// All findings are reported for every destination, blocked or not, so the caller can write
// the audit record: types and counts from [Result.Counts], never values. Samples show at
// most four characters at each end, paths show keys that hold findings in their redacted
// form, and [Result.Reason] names types only.
//
// # Shape of the output
//
// A document that is not valid JSON (exactly what encoding/json rejects, including nesting
// deeper than 10000) is an error wrapping [ErrInvalidJSON], with no output: a caller must
// treat any error as "do not send". Otherwise the output keeps every byte the policy does
// not change: key order, whitespace, number spelling. Object keys are scanned too (a map
// keyed by email address is anonymized like its values), so a Record output may hold two
// equal keys where two different values were. A JSON number that holds a finding becomes a
// string placeholder. Placeholders are never reported again: scanning an output finds
// nothing, which the fuzz tests check.
//
// [MaskedValue] recognises every mask and placeholder these policies write ([REDACTED:…],
// [EMAIL_1], PCI and star masks), so that a connector write can refuse to carry one back
// over the value it hides.
//
// # Cost
//
// NewScanner compiles nothing (the tables are Go code) and costs a few microseconds; build
// one per process and share it. A scan is a single pass over the document with no regular
// expressions; on a typical ERP batch it runs at about 200 MB/s, 20–30 µs for 4 KiB, and
// it stays linear on hostile input.
package dlp
