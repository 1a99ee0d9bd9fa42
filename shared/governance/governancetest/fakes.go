package governancetest

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// Connectors is a governance.Connectors whose writers answer in-process, without a
// network, for tests and benchmarks of the guard itself. Every system is configured
// unless listed in NotConfigured. It is safe for concurrent use.
type Connectors struct {
	// NotConfigured systems answer connector.ErrNotConfigured.
	NotConfigured map[connector.System]bool
	// Err, when set, is returned by every write.
	Err error
	// Keep makes the fake remember each write (Writes); off, it only counts, so a
	// benchmark does not measure its own bookkeeping.
	Keep bool

	mu     sync.Mutex
	count  int
	writes []Write
}

// Write is one write a fake writer received.
type Write struct {
	Tenant string
	System connector.System
	Req    connector.WriteRequest
}

var _ governance.Connectors = (*Connectors)(nil)

// Client implements governance.Connectors.
func (c *Connectors) Client(_ context.Context, tenant string, system connector.System) (governance.Writer, error) {
	if c.NotConfigured[system] {
		return nil, fmt.Errorf("tenant %s, system %s: %w", tenant, system, connector.ErrNotConfigured)
	}
	return writer{c: c, tenant: tenant, system: system}, nil
}

type writer struct {
	c      *Connectors
	tenant string
	system connector.System
}

func (w writer) Write(_ context.Context, req connector.WriteRequest) (connector.WriteResult, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	if w.c.Err != nil {
		return connector.WriteResult{}, w.c.Err
	}
	w.c.count++
	if w.c.Keep {
		req.Fields = maps.Clone(req.Fields)
		w.c.writes = append(w.c.writes, Write{Tenant: w.tenant, System: w.system, Req: req})
	}
	id := req.RecordID
	if req.Create {
		// A create's record gets an id of the fake's making, as a system gives one.
		id = fmt.Sprintf("new-%d", w.c.count)
	}
	return connector.WriteResult{Record: connector.Record{Entity: req.Entity, ID: id, Fields: req.Fields,
		Version: fmt.Sprint(w.c.count)}, Created: req.Create}, nil
}

// Count is the number of writes received.
func (c *Connectors) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

// Writes returns the writes received (with Keep set), in order.
func (c *Connectors) Writes() []Write {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Write(nil), c.writes...)
}

// Alerts is a governance.Alerter that remembers what it was told. Err, when set, is
// returned by every alert.
type Alerts struct {
	Err error

	mu     sync.Mutex
	alerts []governance.OwnershipRejection
	masked []governance.MaskedValueRefusal
}

var _ governance.Alerter = (*Alerts)(nil)

// Alert implements governance.Alerter.
func (a *Alerts) Alert(_ context.Context, r governance.OwnershipRejection) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.alerts = append(a.alerts, r)
	return a.Err
}

// AlertMaskedValue implements governance.Alerter.
func (a *Alerts) AlertMaskedValue(_ context.Context, r governance.MaskedValueRefusal) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.masked = append(a.masked, r)
	return a.Err
}

// Masked returns the masked-value alerts raised, in order.
func (a *Alerts) Masked() []governance.MaskedValueRefusal {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]governance.MaskedValueRefusal(nil), a.masked...)
}

// All returns the ownership alerts raised, in order.
func (a *Alerts) All() []governance.OwnershipRejection {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]governance.OwnershipRejection(nil), a.alerts...)
}
