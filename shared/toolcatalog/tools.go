package toolcatalog

import (
	"github.com/syncassist/syncassist/shared/syncerror"
)

// ProtocolVersion is the MCP protocol version the catalogue reports and the MCP endpoint
// speaks (the newest one it negotiates).
const ProtocolVersion = "2025-11-25"

// Tool names, exactly as the spec lists them.
const (
	ToolFieldMappingSuggest = "service.field_mapping_suggest"
	ToolIntegrationStatus   = "service.integration_status"
	ToolGovernanceCheck     = "service.governance_check"
	ToolMCPDiscover         = "service.mcp_discover"
)

// Tool is one tool of the catalogue: what GET /api/mcp/tools lists and what tools/list
// answers, from the same value.
type Tool struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	InputSchema *Schema `json:"inputSchema"`
}

// Limits of the tools' arguments (the spec leaves them open).
const (
	// DefaultConfidenceThreshold is field_mapping_suggest's threshold when none is given.
	DefaultConfidenceThreshold = 0.5
	// DefaultStatusLimit and MaxStatusLimit bound integration_status's newest items.
	DefaultStatusLimit = 20
	MaxStatusLimit     = 100
)

// Statuses integration_status accepts: every status of a processed row (the queue's own
// list, so a status added there is counted here too).
var Statuses = syncerror.Statuses

// Tools returns the catalogue: the four tools in the spec's order. Each call builds a fresh
// copy, so a caller may change what it gets without changing the service.
//
// The input schemas follow the spec's tables exactly in property names, types and required
// lists. Beyond the tables they carry descriptions, bounds (confidenceThreshold 0..1, limit
// 1..100) and the status enum, and every tool's top level is closed
// (additionalProperties: false) so that a misspelt argument is reported instead of
// silently ignored. Field objects and sampleData records are open: systems describe fields
// with extra attributes (format, maxLength) that the tool may ignore.
func Tools() []Tool {
	field := func() *Schema {
		return &Schema{
			Type:        "object",
			Description: "A field of a system's record.",
			Properties: map[string]*Schema{
				"name":        {Type: "string", Description: "Field name as the system spells it, e.g. shipToPostalCode."},
				"type":        {Type: "string", Description: "Field type: string, number, integer, boolean, date, datetime, email, phone, url, enum, object, array, id."},
				"description": {Type: "string", Description: "What the field holds, in words; used when the name says little."},
				"required":    {Type: "boolean", Description: "Whether the system requires a value."},
			},
			Required: []string{"name", "type"},
		}
	}
	statuses := make([]string, len(Statuses))
	for i, s := range Statuses {
		statuses[i] = string(s)
	}
	return []Tool{
		{
			Name: ToolFieldMappingSuggest,
			Description: "Generates governed field-mapping suggestions with confidence and reasoning: at most one " +
				"source field per target field, scored on normalised names, ERP/CRM/shipping synonyms, type " +
				"compatibility and the formats seen in sampleData, and lists required target fields left unmapped. " +
				"Sample values are scanned for sensitive data and never echoed.",
			InputSchema: &Schema{
				Type: "object",
				Properties: map[string]*Schema{
					"sourceSystem": {Type: "string", Description: "System the data comes from, e.g. webshop or crm."},
					"targetSystem": {Type: "string", Description: "System the data goes to, e.g. hosterp."},
					"sourceFields": {Type: "array", Description: "Fields of the source record.", Items: field()},
					"targetFields": {Type: "array", Description: "Fields of the target record.", Items: field()},
					"sampleData": {Type: "array", Description: "Sample source records keyed by source field name " +
						"(dotted names reach into nested objects); only their formats are used.",
						Items: &Schema{Type: "object"}},
					"confidenceThreshold": {Type: "number", Description: "Suggestions below this confidence are " +
						"left out; 0 to 1, default 0.5.", Minimum: ptr(0.0), Maximum: ptr(1.0)},
				},
				Required:             []string{"sourceSystem", "targetSystem", "sourceFields", "targetFields"},
				AdditionalProperties: closed,
			},
		},
		{
			Name: ToolIntegrationStatus,
			Description: "Queries health and status summaries of operations and subscriptions: the caller's " +
				"processed sync errors, counted per status, diagnosis state and error class, with the newest items. " +
				"A sync error waiting for its diagnosis and one being diagnosed both count as queued.",
			InputSchema: &Schema{
				Type: "object",
				Properties: map[string]*Schema{
					"status":       {Type: "string", Description: "Only rows in this status; default all.", Enum: statuses},
					"sourceSystem": {Type: "string", Description: "Only rows whose external system or integration is this (case-insensitive)."},
					"customerId":   {Type: "string", Description: "Only rows whose context or payload names this customerId."},
					"limit": {Type: "number", Description: "How many of the newest items to return; a whole number " +
						"from 1 to 100, default 20.", Minimum: ptr(1.0), Maximum: ptr(float64(MaxStatusLimit))},
				},
				AdditionalProperties: closed,
			},
		},
		{
			Name: ToolGovernanceCheck,
			Description: "Evaluates a proposed action or input against governance controls before execution, " +
				"without executing it: the ownership manifest, the loop ledger and the DLP policy. Answers " +
				"allow, allow_with_drops, require_approval or deny, with the reasons and masked DLP findings. " +
				`Shape input as {"entity": "customer", "recordId": "C-1", "fields": {...}}; any other object is DLP-scanned only.`,
			InputSchema: &Schema{
				Type: "object",
				Properties: map[string]*Schema{
					"input": {Type: "object", Description: "The proposed write: entity, recordId and fields " +
						"(the values to write); optional operation."},
					"sourceSystem": {Type: "string", Description: "System whose data or authority the action carries: hosterp, erp2, crm, marketing or shipping."},
					"targetSystem": {Type: "string", Description: "System the action writes to: hosterp, erp2, crm, marketing or shipping."},
					"userId":       {Type: "string", Description: "The user on whose behalf the action would run, for the audit trail."},
				},
				Required:             []string{"input"},
				AdditionalProperties: closed,
			},
		},
		{
			Name: ToolMCPDiscover,
			Description: "Discovers namespaced external tools exposed through the service gateway for the " +
				"caller's tenant, named <server>.<tool>, with their descriptions and input schemas.",
			InputSchema: &Schema{
				Type:                 "object",
				Properties:           map[string]*Schema{},
				AdditionalProperties: closed,
			},
		},
	}
}
