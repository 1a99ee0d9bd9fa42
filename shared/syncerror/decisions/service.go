package decisions

import (
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
)

// Service serves the decisions on the operator queue. Authentication and roles are
// checked by middleware in front; the tenant always comes from the caller's identity, so
// another tenant's row is simply not found.
type Service struct {
	// Service is the queue the decisions answer with (a decided row as its detail shows
	// it), with the store, tenants, audit, clock and approval policy they share with it.
	*queue.Service
	Fixes    syncerror.FixWriter
	LeaseTTL time.Duration
	// Retries runs the retry route (nil: the route answers 503).
	Retries syncerror.RetryRunner
	// Evidence tells whether the write of an approve that stopped mid-write reached its
	// target, so a decision on such a row settles it first (nil: the row's marker only).
	Evidence syncerror.WriteEvidence
}
