package policy

import "github.com/syncassist/syncassist/shared/syncerror"

// Service serves the approval policy's and the knowledge's routes and what the decisions
// consult of them. Authentication and roles are checked by middleware in front; the tenant
// always comes from the caller's identity.
type Service struct {
	// Operator is the store, masking, tenants, audit and clock the rooms share.
	*syncerror.Operator
	// Assist is the approval policy, learning and automation (nil: approvers approve).
	Assist *Assist
}
