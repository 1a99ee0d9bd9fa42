// Package retries runs the retries of sync errors: a person's retry (the operator's retry
// route, through syncerror.RetryRunner), the schedule for rows of a retryable class, and
// pulling a system's retries forward when a write to it lands. Each attempt re-runs the
// integration the error came from through the wiring's Deliverer, carrying the approved
// fix under RetryKey.
//
// It may import the core (shared/syncerror) only: no other room of the feature.
package retries
