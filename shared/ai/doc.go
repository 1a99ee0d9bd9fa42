// Package ai owns the service's use of AI models: the diagnosis of sync errors (an error
// class, a fix as field changes against the failed record's payload, a rationale and a
// confidence), the providers that produce it (an offline rule-based diagnoser, Amazon
// Bedrock, OpenAI-compatible servers), their prices, and Governed, the only way to reach a
// provider.
//
// Governed enforces the governance rules of ARCHITECTURE.md ("AI", "DLP", "Audit") in one
// place: every call is attributed to a tenant, everything a provider will read is
// anonymized by a PromptScanner first (fail closed), and every inference leaves a
// reasoning trace, a cost record per provider call and audit events. Providers cannot be
// called from outside this package: their operations are unexported methods of Provider,
// and inside the package only Governed calls them (enforce_test.go checks the sources).
package ai
