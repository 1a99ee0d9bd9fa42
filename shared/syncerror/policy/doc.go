// Package policy is the tenant's approval policy and what it learned from people's
// decisions: the policy's rules and their validation, the settings routes for both
// (PolicyGetHandler, PolicyPutHandler, the knowledge routes), the automation records'
// listing, and what the decisions consult (MayApprove with its two-approver record,
// LearnDecision, CountResolved, DecisionOf). Assist holds the policy, the learning and the
// auto rules' cap and outcomes, shared by the decisions and the diagnosis worker.
//
// It may import the core (shared/syncerror) only: no other room of the feature.
package policy
