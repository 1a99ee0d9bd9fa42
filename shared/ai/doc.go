// Package ai owns the service's use of AI models: the diagnosis of sync errors (an error
// class, a fix as field changes against the failed record's payload, a rationale and a
// confidence), the providers that produce it (an offline rule-based diagnoser, Amazon
// Bedrock, OpenAI-compatible servers), their prices, and Governed, the only way to reach a
// provider.
//
// Error classes are defined so that a label can be argued from the error's text alone
// (diagnosis.go): connection (no usable answer: refused, reset, DNS, TLS, socket or read
// time-out, a gateway's 502/504), intermittent (the target failed for a passing reason:
// 500/503 with "try again", locks, concurrent changes, deadlocks), rate_limit (any request,
// concurrency or governance quota, whatever status carries it), too_large (a request,
// batch, id list, file, page or payload over a size or count limit), parse (the body could
// not be read), missing (a required value absent), value (a field's value invalid for the
// target, closed periods and disallowed currencies included), reference (a value that
// should point to a record does not: unknown, inactive, deleted, malformed id), duplicate
// (the record or a unique key exists), permission (the caller is not allowed, or its
// credentials expired). The rule-based diagnoser weighs, in this order, the vendor's error
// code (catalogue*.go: each vendor's published codes, each citing its reference), the HTTP
// status as that vendor uses it, and the message's wording; its rationale names what
// decided and where that meaning comes from. Package aieval measures any provider against
// labelled corpora (make eval-diagnoser).
//
// Governed enforces the governance rules of ARCHITECTURE.md ("AI", "DLP", "Audit") in one
// place: every call is attributed to a tenant, everything a provider will read is
// anonymized by a PromptScanner first (fail closed), and every inference leaves a
// reasoning trace, a cost record per provider call and audit events. Providers cannot be
// called from outside this package: their operations are unexported methods of Provider,
// and inside the package only Governed calls them (enforce_test.go checks the sources).
package ai
