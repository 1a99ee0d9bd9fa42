package dlpcorpus

import "slices"

// Cases holds realistic ERP, CRM and shipping snippets. Positives name every finding;
// negatives cover each shape the scanner must leave alone. The file is data only.
var Cases = slices.Concat(personalCases, secretCases, negativeCases, laterCases)

// cleanOrder is a whole sales order that holds no sensitive value: ids, dates, timestamps,
// SKUs, EANs, amounts, an idempotency key, a version.
const cleanOrder = `{"salesOrder":{"id":"SO-10042","externalId":"4500012345","customerId":"C-000118","orderDate":"2026-11-22","currency":"EUR","lines":[{"lineNo":10,"sku":"WID-4411-BLK-XL","ean":"4006381333931","qty":3,"unitPrice":129.50,"total":"388.50"},{"lineNo":20,"sku":"GAD-0815","ean":"4012345678925","qty":1,"unitPrice":1299.00,"total":"1,299.00"}],"totals":{"net":1687.50,"tax":320.63,"gross":2008.13},"createdAt":1732233600,"updatedAtMs":1732233600123,"idempotencyKey":"550e8400-e29b-41d4-a716-446655440000","version":"v2.260.0"}}`
