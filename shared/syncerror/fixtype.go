package syncerror

import (
	"context"
	"time"
)

// A fix is judged as what it writes: each path must be a field of the record type it is
// written to, and each value is given that field's type, from the target system's own
// metadata (the reads the console's field pickers make). "01067" on a text field stays
// the text "01067"; "ten" on a number field is refused, never written.

// Value types of a target field (connector.ValueType); "" is untyped, written as given.
const (
	TypeString    = "string"
	TypeInteger   = "integer"
	TypeDecimal   = "decimal"
	TypeBoolean   = "boolean"
	TypeDate      = "date"
	TypeReference = "reference"
)

// TargetFields are the fields of the record type a claim's fix is written to.
type TargetFields struct {
	// Target names the system and record type for people: "NetSuite salesOrder".
	Target string
	// Types maps each field to its value type ("" when untyped).
	Types map[string]string
}

// WriteTarget is where an approve writes a row's fix: the system (its connector key and
// vendor), the record type and the record; RecordID is empty when the record is not known
// (FlowTargetUnknown), and the approve is then refused.
type WriteTarget struct {
	System     string `json:"system"`
	Vendor     string `json:"vendor"`
	RecordType string `json:"recordType"`
	RecordID   string `json:"recordId"`
}

// FieldCatalog knows where a row's fix is written and reads the target record type's
// fields from its system's metadata.
type FieldCatalog interface {
	// WriteTarget names the record the fix is written to; it reads nothing.
	WriteTarget(c Claim) WriteTarget
	// TargetFields reads the target record type's fields. An error means they could not
	// be read (the vendor is down, the tenant has no connector, the vendor has no metadata
	// for the type).
	TargetFields(ctx context.Context, c Claim) (TargetFields, error)
}

// MetadataWait bounds the read of the target's fields, so that a slow vendor leaves the
// approve its time for the write (it then writes the values as sent).
const MetadataWait = 5 * time.Second
