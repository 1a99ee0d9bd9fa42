package connector

// Checking a connection and reading a vendor's metadata: what an admin needs before a
// flow runs. Both are reads through the same client (and so the same SSRF guard, auth
// and error reading) as every other call.
//
//	hosterp    NetSuite: the check and the entities read the REST metadata catalogue
//	           (GET record/v1/metadata-catalog); a record type's fields are its JSON
//	           schema (GET record/v1/metadata-catalog/{type}, Accept application/schema+json)
//	erp2       Business Central: the check reads the company (GET {base}); entities are
//	           the entity sets of the API's CSDL document (GET api/v2.0/$metadata), an
//	           entity set's fields the properties of its entity type
//	crm        Salesforce: the check and the entities are describeGlobal (GET sobjects);
//	           fields are the sObject's describe (GET sobjects/{SObject}/describe)
//	marketing  Mailchimp: the check is GET /3.0/ping; entities are the audiences (GET
//	           lists), fields the member's own properties and the audience's merge fields
//	           (GET lists/{id}/merge-fields)
//	shipping   ShipStation has no metadata API: the check lists the account's tags (GET
//	           accounts/listtags), entities and fields are the order model's, fixed here

import (
	"context"
	"slices"
	"strings"
)

// Operations of this file, named in Error.Op.
const (
	OpCheck    = "check"
	OpMetadata = "metadata"
)

// Entity is one record type of a system, as its vendor names it.
type Entity struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
}

// Field is one field of an entity, as its vendor describes it.
type Field struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
	// Type is the vendor's own type name (string, Edm.Decimal, picklist, …).
	Type     string `json:"type,omitempty"`
	Required bool   `json:"required,omitempty"`
	ReadOnly bool   `json:"readOnly,omitempty"`
	// ExternalID marks a field the vendor upserts by (Salesforce external ids, NetSuite
	// externalId, Mailchimp email_address, ShipStation orderKey).
	ExternalID bool `json:"externalId,omitempty"`
}

// describer is a profile that can check its connection and describe its entities.
type describer interface {
	// probe makes one harmless authenticated read and says what it read.
	probe(ctx context.Context, c *Client) (string, error)
	entities(ctx context.Context, c *Client) ([]Entity, error)
	fields(ctx context.Context, c *Client, entity string) ([]Field, error)
}

// maxMetadataItems bounds what one metadata answer yields, so a huge org cannot make one
// answer (or its cached copy) unbounded.
const maxMetadataItems = 2000

// Check makes one harmless authenticated read of the system and returns what it read (for
// the answer to the admin). Its failure is an *Error like any call's: status, the vendor's
// code and the sentinel, never the answer's body.
func (c *Client) Check(ctx context.Context) (string, error) {
	d, ok := c.prof.(describer)
	if !ok {
		return "", &Error{System: c.sys, Op: OpCheck, Err: ErrUnsupported}
	}
	return d.probe(ctx, c)
}

// Entities lists the system's record types, sorted by name.
func (c *Client) Entities(ctx context.Context) ([]Entity, error) {
	d, ok := c.prof.(describer)
	if !ok {
		return nil, &Error{System: c.sys, Op: OpMetadata, Err: ErrUnsupported}
	}
	out, err := d.entities(ctx, c)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Entity) int { return strings.Compare(a.Name, b.Name) })
	return compactBy(out, func(e Entity) string { return e.Name }), nil
}

// Fields lists an entity's fields, sorted by name. An entity the system does not have is
// ErrNotFound.
func (c *Client) Fields(ctx context.Context, entity string) ([]Field, error) {
	d, ok := c.prof.(describer)
	switch {
	case !ok:
		return nil, &Error{System: c.sys, Op: OpMetadata, Err: ErrUnsupported}
	case !validSegment(entity) || len(entity) > 128:
		return nil, c.refuse(OpMetadata, "entity must be a path segment of at most 128 characters")
	}
	out, err := d.fields(ctx, c, entity)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
	return compactBy(out, func(f Field) string { return f.Name }), nil
}

// compactBy drops empty and repeated names from a sorted list and caps its length.
func compactBy[T any](in []T, name func(T) string) []T {
	out := in[:0]
	for _, v := range in {
		if name(v) == "" || len(out) > 0 && name(out[len(out)-1]) == name(v) {
			continue
		}
		out = append(out, v)
		if len(out) == maxMetadataItems {
			break
		}
	}
	return out
}
