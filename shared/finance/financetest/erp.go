package financetest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/identity"
)

// ERP is a finance.ERPUpdater that answers in-process: it confirms every update (echoing
// the record with the approval's fields and a version) unless told otherwise. It is safe
// for concurrent use.
type ERP struct {
	// Err, when set, is returned by every update.
	Err error
	// Nothing makes every update return a zero WriteResult with no error.
	Nothing bool
	// Before, when set, runs at the start of every update; it may block (and watch ctx).
	Before func(ctx context.Context, a finance.Approval)
	// Lost, when set, is returned by every update after the update was applied: an answer
	// lost to a timeout or a 5xx after the write.
	Lost error
	// ReadErr, when set, is returned by every Applied.
	ReadErr error

	mu      sync.Mutex
	calls   []ERPCall
	applied map[string]bool
}

// ERPCall is one update the fake received.
type ERPCall struct {
	Who      identity.Identity
	Approval finance.Approval
	Key      string
}

var _ finance.ERPUpdater = (*ERP)(nil)

// Update implements finance.ERPUpdater.
func (e *ERP) Update(ctx context.Context, who identity.Identity, a finance.Approval, key string) (connector.WriteResult, error) {
	if e.Before != nil {
		e.Before(ctx, a)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, ERPCall{Who: who, Approval: a, Key: key})
	if e.Err != nil {
		return connector.WriteResult{}, e.Err
	}
	if e.Nothing {
		return connector.WriteResult{}, nil
	}
	if e.applied == nil {
		e.applied = map[string]bool{}
	}
	e.applied[a.TenantID+"/"+a.ERPID] = true
	if e.Lost != nil {
		return connector.WriteResult{}, e.Lost
	}
	var fields map[string]any
	_ = json.Unmarshal(a.Fields, &fields)
	return connector.WriteResult{Record: connector.Record{Entity: a.Entity, ID: a.ERPID, Fields: fields, Version: "2"}}, nil
}

// Applied implements finance.ERPUpdater: whether an update of a's record was applied
// (neither Err nor Nothing set), its answer Lost or not.
func (e *ERP) Applied(_ context.Context, _ identity.Identity, a finance.Approval) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ReadErr != nil {
		return false, e.ReadErr
	}
	return e.applied[a.TenantID+"/"+a.ERPID], nil
}

// Calls returns the updates received so far, in order.
func (e *ERP) Calls() []ERPCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]ERPCall(nil), e.calls...)
}
