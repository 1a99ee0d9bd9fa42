package syncerror

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// maxCustomerDepth is how deep in a record's context or payload a customer id is looked for.
const maxCustomerDepth = 4

// CustomerIDs are the customer ids a record's context and payload hold: the value of a key
// spelt customerId (any case, with or without '_' or '-'), or the "id" of a "customer"
// object, at most four levels deep, a string (trimmed) or a number (as written); each
// once, in the order found. The assistant's status tool filters by them, and a store
// keeps them apart so that a listing that leaves the payload out still has them (issue
// 37 §1, Claim.CustomerIDs).
func (r Record) CustomerIDs() []string {
	var out []string
	add := func(v any) {
		var s string
		switch val := v.(type) {
		case string:
			s = strings.TrimSpace(val)
		case json.Number:
			s = val.String()
		default:
			return
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, doc := range []json.RawMessage{r.Context, r.Payload} {
		if len(doc) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			customersIn(v, 0, add)
		}
	}
	return out
}

// CustomersOf are c's customer ids: as its store kept them, else read from its record.
func CustomersOf(c Claim) []string {
	if c.CustomerIDs != nil {
		return c.CustomerIDs
	}
	return c.Record.CustomerIDs()
}

// keySeparators are what "customer_id" and "customer-id" drop to read as customerId.
var keySeparators = strings.NewReplacer("_", "", "-", "")

func customersIn(v any, depth int, add func(any)) {
	if depth >= maxCustomerDepth {
		return
	}
	switch val := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(val)) {
			member := val[k]
			switch strings.ToLower(keySeparators.Replace(k)) {
			case "customerid":
				add(member)
			case "customer":
				if obj, ok := member.(map[string]any); ok {
					add(obj["id"])
				}
			}
			customersIn(member, depth+1, add)
		}
	case []any:
		for _, item := range val {
			customersIn(item, depth+1, add)
		}
	}
}
