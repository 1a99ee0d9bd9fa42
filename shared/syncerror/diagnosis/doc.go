// Package diagnosis is the worker that takes a claim off the diagnosis queue and turns it
// into a proposal: the tenant's knowledge first, the AI diagnoser otherwise (aidiagnoser
// adapts the AI client to it), then the tenant's auto rule (automation.AutoApply) and the
// retry schedule for a retryable class. Transient failures hand the claim back to the
// queue; permanent ones end its diagnosis.
//
// It may import the core (shared/syncerror), retries, policy (the tenant's knowledge),
// decisions and automation only: no other room of the feature.
package diagnosis
