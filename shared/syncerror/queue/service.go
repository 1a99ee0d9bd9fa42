package queue

import "github.com/syncassist/syncassist/shared/syncerror/policy"

// Service serves the queue's reads. Authentication and roles are checked by middleware in
// front; the tenant always comes from the caller's identity, so another tenant's row is
// simply not found.
type Service struct {
	// Service is the approval policy the rows are annotated with, over the store, masking,
	// tenants, audit and clock the reads share with the decisions.
	*policy.Service
}
