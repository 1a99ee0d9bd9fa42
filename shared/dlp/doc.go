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
// URLs, and the values of password-like fields.
//
// Detectors validate wherever a check exists, and the ones without a check demand context,
// because the payloads are ERP records full of long numbers: order, invoice and customer
// ids, timestamps, barcodes, tracking numbers, amounts. A 9-digit SSN without dashes, a
// phone number without a + prefix and a 40-character AWS secret are only reported when the
// field name or nearby words say what they are. Field-name rules match the last words of a
// name (clientSecret, db_password, x-api-key, aws_secret_access_key), never any name that
// merely contains "key" or "token": idempotencyKey, externalKey, primaryKey and tokenCount
// stay clean. That is the rule whose absence makes a generic secret scanner flag every
// idempotency key of an ERP payload.
//
// # Policies
//
//   - [AIPrompt]: every finding is replaced by a typed placeholder ([EMAIL_1],
//     [CARD_NUMBER_2]). One value gets one placeholder throughout a scan, so a model can still
//     see that two records share an email address without seeing the address.
//   - [Record]: every finding is replaced by [REDACTED:EMAIL] and the like. Audit rows, traces
//     and logs have no use for correlating values, and fewer distinct tokens keep them
//     smaller.
//   - [ConnectorWrite]: the document is never rewritten (a connector must write what the
//     operator approved or nothing); instead the scan blocks. It blocks secrets (keys,
//     tokens, passwords, private keys, JWTs), payment card numbers and US SSNs. It lets
//     through email addresses, phone numbers, postal addresses and IBANs: they are the master
//     data the ERP, CRM, marketing and shipping systems own and the write exists to correct,
//     and IBANs are routine on customer and vendor records (SEPA mandates, remittance). SSNs
//     are blocked because none of the five target systems needs one in an order, invoice,
//     customer or shipment, and a sync fix must not spread one further; a US vendor record
//     that really carries a taxpayer id has to be written outside the AI fix path.
//
// All findings are reported for every destination, blocked or not, so the caller can write
// the audit record (types and counts from [Result.Counts], never values).
//
// # Failing closed
//
// A document that is not valid JSON is an error and produces no output; a caller must treat
// any error as "do not send". JSON structure is preserved: only string values (and object
// keys) change, and a JSON number that holds a finding becomes a string placeholder.
// Placeholders are never reported again, so scanning an output finds nothing.
package dlp
