package connector

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The vendors' metadata, read as metadata.go's table says.

// MaxMetadataBytes bounds a metadata document: Business Central's $metadata and a large
// org's describeGlobal run to megabytes, beyond what a record read may be.
const MaxMetadataBytes = 16 << 20

// getJSONUpTo is getJSON reading up to MaxMetadataBytes.
func (c *Client) getJSONUpTo(ctx context.Context, op, target string, hdr http.Header, out any) (answer, error) {
	ans, err := c.send(ctx, call{op: op, method: http.MethodGet, target: target, header: hdr, maxBytes: MaxMetadataBytes}, nil)
	if err != nil {
		return ans, err
	}
	if json.Unmarshal(ans.body, out) != nil {
		return ans, c.malformed(op, ans)
	}
	return ans, nil
}

// NetSuite: the REST metadata catalogue.

const netsuiteCatalogPath = netsuiteRecordPrefix + "/metadata-catalog"

func (netsuite) probe(ctx context.Context, c *Client) (string, error) {
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	_, err := c.getJSON(ctx, OpCheck, c.base+netsuiteCatalogPath, nil, &res)
	return "GET " + netsuiteCatalogPath, err
}

func (netsuite) entities(ctx context.Context, c *Client) ([]Entity, error) {
	var res struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	if _, err := c.getJSONUpTo(ctx, OpMetadata, c.base+netsuiteCatalogPath, nil, &res); err != nil {
		return nil, err
	}
	out := make([]Entity, 0, len(res.Items))
	for _, it := range res.Items {
		out = append(out, Entity{Name: it.Name})
	}
	return out, nil
}

// fields reads the record type's JSON schema: properties with title, type and readOnly,
// and the required list.
func (netsuite) fields(ctx context.Context, c *Client, recordType string) ([]Field, error) {
	var res struct {
		Properties map[string]struct {
			Title    string `json:"title"`
			Type     string `json:"type"`
			ReadOnly bool   `json:"readOnly"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	h := http.Header{"Accept": {"application/schema+json"}}
	if _, err := c.getJSONUpTo(ctx, OpMetadata, c.base+netsuiteCatalogPath+"/"+url.PathEscape(recordType), h, &res); err != nil {
		return nil, err
	}
	out := make([]Field, 0, len(res.Properties))
	for name, p := range res.Properties {
		if name == "links" {
			continue
		}
		out = append(out, Field{Name: name, Label: p.Title, Type: p.Type, ReadOnly: p.ReadOnly,
			Required: contains(res.Required, name), ExternalID: name == NetSuiteExternalID})
	}
	return out, nil
}

// Business Central: the company, and the CSDL ($metadata) of API v2.0.

func (businessCentral) probe(ctx context.Context, c *Client) (string, error) {
	var res map[string]any
	_, err := c.getJSON(ctx, OpCheck, c.base, nil, &res)
	return "GET companies({id})", err
}

// edmx is the part of a CSDL document the metadata needs.
type edmx struct {
	Schemas []struct {
		Namespace   string `xml:"Namespace,attr"`
		EntityTypes []struct {
			Name string `xml:"Name,attr"`
			Keys []struct {
				Name string `xml:"Name,attr"`
			} `xml:"Key>PropertyRef"`
			Properties []struct {
				Name     string `xml:"Name,attr"`
				Type     string `xml:"Type,attr"`
				Nullable string `xml:"Nullable,attr"`
			} `xml:"Property"`
		} `xml:"EntityType"`
		EntitySets []struct {
			Name       string `xml:"Name,attr"`
			EntityType string `xml:"EntityType,attr"`
		} `xml:"EntityContainer>EntitySet"`
	} `xml:"DataServices>Schema"`
}

// metadata reads the API's CSDL document, beside the companies: {root}/api/v2.0/$metadata.
func (businessCentral) metadata(ctx context.Context, c *Client) (edmx, error) {
	root := c.base[:strings.LastIndex(c.base, "/companies(")]
	ans, err := c.send(ctx, call{op: OpMetadata, method: http.MethodGet, target: root + "/$metadata",
		header: http.Header{"Accept": {"application/xml"}}, maxBytes: MaxMetadataBytes}, nil)
	if err != nil {
		return edmx{}, err
	}
	var doc edmx
	if xml.Unmarshal(ans.body, &doc) != nil {
		return edmx{}, c.malformed(OpMetadata, ans)
	}
	return doc, nil
}

func (b businessCentral) entities(ctx context.Context, c *Client) ([]Entity, error) {
	doc, err := b.metadata(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []Entity
	for _, s := range doc.Schemas {
		for _, set := range s.EntitySets {
			out = append(out, Entity{Name: set.Name})
		}
	}
	return out, nil
}

// fields are the properties of the entity set's entity type; its key is read-only.
func (b businessCentral) fields(ctx context.Context, c *Client, entitySet string) ([]Field, error) {
	doc, err := b.metadata(ctx, c)
	if err != nil {
		return nil, err
	}
	typeName := ""
	for _, s := range doc.Schemas {
		for _, set := range s.EntitySets {
			if set.Name == entitySet {
				typeName = set.EntityType
			}
		}
	}
	for _, s := range doc.Schemas {
		for _, t := range s.EntityTypes {
			if typeName == "" || s.Namespace+"."+t.Name != typeName && t.Name != typeName {
				continue
			}
			out := make([]Field, 0, len(t.Properties))
			for _, p := range t.Properties {
				key := false
				for _, k := range t.Keys {
					key = key || k.Name == p.Name
				}
				out = append(out, Field{Name: p.Name, Type: p.Type, Required: p.Nullable == "false" && !key,
					ReadOnly: key || p.Name == bcModified})
			}
			return out, nil
		}
	}
	return nil, &Error{System: c.sys, Op: OpMetadata, Err: ErrNotFound, Code: "entity_set_not_found"}
}

// Salesforce: describeGlobal and the sObject's describe.

func (salesforce) sobjectsURL(c *Client) string {
	return c.base + "/services/data/v" + SalesforceAPIVersion + "/sobjects"
}

func (s salesforce) probe(ctx context.Context, c *Client) (string, error) {
	var res map[string]any
	_, err := c.getJSON(ctx, OpCheck, s.sobjectsURL(c), nil, &res)
	return "GET sobjects (describeGlobal)", err
}

func (s salesforce) entities(ctx context.Context, c *Client) ([]Entity, error) {
	var res struct {
		SObjects []struct {
			Name, Label string
			Updateable  bool `json:"updateable"`
			Createable  bool `json:"createable"`
		} `json:"sobjects"`
	}
	if _, err := c.getJSONUpTo(ctx, OpMetadata, s.sobjectsURL(c), nil, &res); err != nil {
		return nil, err
	}
	var out []Entity
	for _, o := range res.SObjects {
		// A flow writes records: sObjects that can be neither made nor changed are noise.
		if o.Updateable || o.Createable {
			out = append(out, Entity{Name: o.Name, Label: o.Label})
		}
	}
	return out, nil
}

func (s salesforce) fields(ctx context.Context, c *Client, sobject string) ([]Field, error) {
	var res struct {
		Fields []struct {
			Name, Label, Type string
			Updateable        bool `json:"updateable"`
			Createable        bool `json:"createable"`
			Nillable          bool `json:"nillable"`
			DefaultedOnCreate bool `json:"defaultedOnCreate"`
			ExternalID        bool `json:"externalId"`
		} `json:"fields"`
	}
	if _, err := c.getJSONUpTo(ctx, OpMetadata, s.sobjectsURL(c)+"/"+url.PathEscape(sobject)+"/describe", nil, &res); err != nil {
		return nil, err
	}
	out := make([]Field, 0, len(res.Fields))
	for _, f := range res.Fields {
		out = append(out, Field{Name: f.Name, Label: f.Label, Type: f.Type, ExternalID: f.ExternalID,
			ReadOnly: !f.Updateable && !f.Createable, Required: f.Createable && !f.Nillable && !f.DefaultedOnCreate})
	}
	return out, nil
}

// Mailchimp: ping, the audiences, and an audience's merge fields.

func (mailchimp) probe(ctx context.Context, c *Client) (string, error) {
	var res map[string]any
	_, err := c.getJSON(ctx, OpCheck, c.base+"/3.0/ping", nil, &res)
	return "GET /3.0/ping", err
}

func (mailchimp) entities(ctx context.Context, c *Client) ([]Entity, error) {
	var res struct {
		Lists []struct{ ID, Name string } `json:"lists"`
	}
	q := url.Values{"count": {strconv.Itoa(mailchimpMaxCount)}, "fields": {"lists.id,lists.name"}}
	if _, err := c.getJSON(ctx, OpMetadata, c.base+"/3.0/lists?"+q.Encode(), nil, &res); err != nil {
		return nil, err
	}
	out := make([]Entity, 0, len(res.Lists))
	for _, l := range res.Lists {
		out = append(out, Entity{Name: l.ID, Label: l.Name})
	}
	return out, nil
}

// mailchimpMemberFields are a list member's own properties a write can set.
var mailchimpMemberFields = []Field{
	{Name: MailchimpEmail, Label: "Email address", Type: "string", Required: true, ExternalID: true},
	{Name: "status", Label: "Subscription status", Type: "string"},
	{Name: "email_type", Label: "Email type", Type: "string"},
	{Name: "language", Label: "Language", Type: "string"},
	{Name: "vip", Label: "VIP", Type: "boolean"},
}

// MailchimpMergePrefix names a merge field as a flow maps it: "merge_fields.FNAME". The
// profile nests such fields into the member's merge_fields object when it writes.
const MailchimpMergePrefix = "merge_fields."

func (mailchimp) fields(ctx context.Context, c *Client, listID string) ([]Field, error) {
	var res struct {
		MergeFields []struct {
			Tag, Name, Type string
			Required        bool `json:"required"`
		} `json:"merge_fields"`
	}
	q := url.Values{"count": {strconv.Itoa(mailchimpMaxCount)}}
	if _, err := c.getJSON(ctx, OpMetadata, c.base+"/3.0/lists/"+url.PathEscape(listID)+"/merge-fields?"+q.Encode(), nil, &res); err != nil {
		return nil, err
	}
	out := append([]Field(nil), mailchimpMemberFields...)
	for _, m := range res.MergeFields {
		out = append(out, Field{Name: MailchimpMergePrefix + m.Tag, Label: m.Name, Type: m.Type, Required: m.Required})
	}
	return out, nil
}

// nestMergeFields moves "merge_fields.TAG" fields into the merge_fields object Mailchimp
// takes; fields keeps its other keys. It returns fields itself when there are none.
func nestMergeFields(fields map[string]any) map[string]any {
	var merge map[string]any
	out := fields
	for k, v := range fields {
		tag, ok := strings.CutPrefix(k, MailchimpMergePrefix)
		if !ok || tag == "" {
			continue
		}
		if merge == nil {
			out = make(map[string]any, len(fields))
			for k2, v2 := range fields {
				out[k2] = v2
			}
			merge = map[string]any{}
			if prev, ok := fields["merge_fields"].(map[string]any); ok {
				for k2, v2 := range prev {
					merge[k2] = v2
				}
			}
		}
		merge[tag] = v
		delete(out, k)
	}
	if merge != nil {
		out["merge_fields"] = merge
	}
	return out
}

// ShipStation: no metadata API; the account's tags are the harmless read, and the
// entities and fields are the published models'.

func (shipstation) probe(ctx context.Context, c *Client) (string, error) {
	var res []json.RawMessage
	_, err := c.getJSON(ctx, OpCheck, c.base+"/accounts/listtags", nil, &res)
	return "GET /accounts/listtags", err
}

// shipstationModels are the resources a flow can write and their fields, from the
// ShipStation API v1 models (Order, Product): what v1 writes (shipstationWritable).
// Customers are left out: v1 reads them (GET /customers/{customerId}) but has no write.
var shipstationModels = map[string][]Field{
	shipstationOrders: {
		{Name: "orderId", Type: "number", ReadOnly: true}, {Name: "orderNumber", Type: "string", Required: true},
		{Name: ShipStationOrderKey, Type: "string", ExternalID: true}, {Name: "orderDate", Type: "string", Required: true},
		{Name: "orderStatus", Type: "string", Required: true}, {Name: "paymentDate", Type: "string"},
		{Name: "shipByDate", Type: "string"}, {Name: "customerUsername", Type: "string"},
		{Name: "customerEmail", Type: "string"}, {Name: "billTo", Type: "Address"}, {Name: "shipTo", Type: "Address"},
		{Name: "items", Type: "OrderItem[]"}, {Name: "amountPaid", Type: "number"}, {Name: "taxAmount", Type: "number"},
		{Name: "shippingAmount", Type: "number"}, {Name: "customerNotes", Type: "string"},
		{Name: "internalNotes", Type: "string"}, {Name: "gift", Type: "boolean"}, {Name: "giftMessage", Type: "string"},
		{Name: "paymentMethod", Type: "string"}, {Name: "requestedShippingService", Type: "string"},
		{Name: "carrierCode", Type: "string"}, {Name: "serviceCode", Type: "string"}, {Name: "packageCode", Type: "string"},
		{Name: "confirmation", Type: "string"}, {Name: "shipDate", Type: "string"}, {Name: "weight", Type: "Weight"},
		{Name: "dimensions", Type: "Dimensions"}, {Name: "advancedOptions", Type: "AdvancedOptions"},
		{Name: "tagIds", Type: "number[]"}, {Name: "modifyDate", Type: "string", ReadOnly: true},
	},
	"products": {
		{Name: "productId", Type: "number", ReadOnly: true}, {Name: "sku", Type: "string"}, {Name: "name", Type: "string"},
		{Name: "price", Type: "number"}, {Name: "defaultCost", Type: "number"}, {Name: "weightOz", Type: "number"},
		{Name: "internalNotes", Type: "string"}, {Name: "fulfillmentSku", Type: "string"}, {Name: "active", Type: "boolean"},
		{Name: "modifyDate", Type: "string", ReadOnly: true},
	},
}

func (shipstation) entities(context.Context, *Client) ([]Entity, error) {
	out := make([]Entity, 0, len(shipstationModels))
	for name := range shipstationModels {
		out = append(out, Entity{Name: name})
	}
	return out, nil
}

func (shipstation) fields(_ context.Context, c *Client, resource string) ([]Field, error) {
	fs, ok := shipstationModels[resource]
	if !ok {
		return nil, &Error{System: c.sys, Op: OpMetadata, Err: ErrNotFound, Code: "unknown_resource"}
	}
	return append([]Field(nil), fs...), nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
