package queue

import "github.com/syncassist/syncassist/shared/syncerror"

// Service serves the queue's reads. Authentication and roles are checked by middleware in
// front; the tenant always comes from the caller's identity, so another tenant's row is
// simply not found.
type Service struct {
	// Operator is the store, masking, tenants, audit, clock and approval policy the reads
	// share with the decisions.
	*syncerror.Operator
}
