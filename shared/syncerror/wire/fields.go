package wire

import (
	"context"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// clients gives a tenant's connector to a system (a *connector.Registry).
type clients interface {
	Client(ctx context.Context, tenantID string, system connector.System) (*connector.Client, error)
}

// fieldCatalog is the approve's FieldCatalog: the fields of the record type a fix is
// written to, read from the target system's metadata (connector.Client.Fields, the read
// behind the console's field pickers) and typed by connector.ValueType.
//
// A process keeps an answer for fieldsTTL: an approve should not cost a metadata read
// (Business Central's is a multi-megabyte CSDL document), and a vendor's schema changes
// when an admin adds a field, rarely and by hand; the flow editor's cache is kept an hour
// for the same reason (flow.MetadataTTL).
type fieldCatalog struct {
	conns clients
	now   func() time.Time

	mu    sync.Mutex
	cache map[[3]string]cachedFields
}

const fieldsTTL = 10 * time.Minute

type cachedFields struct {
	fields syncerror.TargetFields
	until  time.Time
}

func newFieldCatalog(conns clients, now func() time.Time) *fieldCatalog {
	if now == nil {
		now = time.Now
	}
	return &fieldCatalog{conns: conns, now: now, cache: map[[3]string]cachedFields{}}
}

// WriteTarget implements syncerror.FieldCatalog: the system the fix writer writes to. A
// flow row whose target record is not known names none (an empty RecordID): its approve
// is refused (syncerror.FlowTargetUnknown).
func (f *fieldCatalog) WriteTarget(c syncerror.Claim) syncerror.WriteTarget {
	target, _ := writeBack(c)
	id := c.Record.RecordID
	if syncerror.FlowTargetUnknown(c) {
		id = ""
	}
	return syncerror.WriteTarget{System: string(target), Vendor: target.Vendor(), RecordType: c.Record.RecordType, RecordID: id}
}

// TargetFields implements syncerror.FieldCatalog.
func (f *fieldCatalog) TargetFields(ctx context.Context, c syncerror.Claim) (syncerror.TargetFields, error) {
	target, _ := writeBack(c)
	k := [3]string{c.TenantID, string(target), c.Record.RecordType}
	f.mu.Lock()
	hit, ok := f.cache[k]
	f.mu.Unlock()
	if ok && f.now().Before(hit.until) {
		return hit.fields, nil
	}
	client, err := f.conns.Client(ctx, c.TenantID, target)
	if err != nil {
		return syncerror.TargetFields{}, err
	}
	fields, err := client.Fields(ctx, c.Record.RecordType)
	if err != nil {
		return syncerror.TargetFields{}, err
	}
	tf := syncerror.TargetFields{Target: target.Vendor() + " " + c.Record.RecordType, Types: make(map[string]string, len(fields))}
	for _, fd := range fields {
		tf.Types[fd.Name] = connector.ValueType(target, fd.Type)
	}
	f.mu.Lock()
	f.cache[k] = cachedFields{fields: tf, until: f.now().Add(fieldsTTL)}
	f.mu.Unlock()
	return tf, nil
}
