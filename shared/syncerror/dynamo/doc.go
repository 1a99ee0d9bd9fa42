// Package dynamo is the sync-error feature's DynamoDB store: the claim rows, their
// decisions, retries, triage, folding and the feature's documents (policy, knowledge,
// automation records) on the processed table. It implements the store interfaces of the
// core package (shared/syncerror) and passes their contract suites (syncerrortest).
//
// It may import the core only: no other room of the feature.
package dynamo
