package connector

// Business Central creates with POST {company}/{entitySet}, answering 201 with the new
// entity (its SystemId GUID as "id")
// (https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/api-reference/v2.0/api/dynamics_customer_create).
// It has no upsert: a caller finds by a natural key ($filter={field} eq '…') and creates
// when there is none; a record with the same key already there is 409
// Internal_EntityWithSameKeyExists, a conflict.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

func (b businessCentral) create(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	body, _ := json.Marshal(req.Fields)
	ans, err := c.sendCreate(ctx, http.MethodPost, c.base+"/"+url.PathEscape(req.Entity), body, req)
	if err != nil {
		return WriteResult{}, err
	}
	var created struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(ans.body, &created) != nil || created.ID == "" {
		return WriteResult{}, c.malformed(OpWrite, ans)
	}
	rec, err := b.decode(c, OpWrite, ans, req.Entity, created.ID)
	if err != nil {
		// The entity was made; its id is what counts.
		return WriteResult{Record: Record{Entity: req.Entity, ID: created.ID}, Created: true}, nil
	}
	return WriteResult{Record: rec, Created: true}, nil
}

// BCFindFilter is the $filter of a find: the field and the quoted value. Exported so the
// fake answers exactly this.
const BCFindFilter = "%s eq %s"

// find reads the entity set filtered on field, its ids only, at most MaxFound.
func (businessCentral) find(ctx context.Context, c *Client, entitySet, field, value string) ([]string, error) {
	opts := url.Values{}
	opts.Set("$filter", field+" eq "+quoteSQL(value))
	opts.Set("$select", "id")
	opts.Set("$top", strconv.Itoa(MaxFound))
	var res struct {
		Value []struct {
			ID string `json:"id"`
		} `json:"value"`
	}
	target := c.base + "/" + url.PathEscape(entitySet) + "?" + strings.ReplaceAll(opts.Encode(), "+", "%20")
	if _, err := c.getJSON(ctx, OpFind, target, nil, &res); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(res.Value))
	for _, v := range res.Value {
		if v.ID != "" {
			ids = append(ids, v.ID)
		}
	}
	return ids, nil
}
