// Package toolcatalog owns the tools the service offers AI agents and the two routes that
// expose them: the catalogue (GET /api/mcp/tools) and the MCP endpoint (POST /api/mcp,
// Streamable HTTP, stateless, JSON responses, built on the official Go SDK).
//
// # One list, two routes
//
// Tools returns the four tools of the spec (service.field_mapping_suggest,
// service.integration_status, service.governance_check, service.mcp_discover) with their
// input schemas. The catalogue route serialises that list; the MCP server registers the
// same values, and validates every call's arguments against the schema it published. The
// schemas follow the spec's tables (property names, types, required lists); their top
// level is closed (additionalProperties: false), field objects and sample records are
// open. Optional arguments sent as null count as absent.
//
// # Identity, tenancy, audit
//
// Both routes need an authenticated identity with the operator role (approvers and admins
// hold it too). The wiring's middleware authenticates; the handlers still answer 401
// without an identity and 403 without the role. MCPHandler pins the identity into the context the
// SDK hands to the tool handlers, and every tool acts for that identity's tenant only.
// Every tools/call of a known tool writes one audit record (action key mcp.call, action
// type mcp, result success or failure, details: tool, argument names, outcome, never
// argument values). A call naming no known tool is a protocol error and writes none (no
// tool ran, as an unknown HTTP route writes none). A role refusal the endpoint makes
// writes one with result denied; deployed, the wiring's role check refuses such a caller
// before the endpoint runs, as on every HTTP route, and writes none. A result whose audit record
// cannot be written is withheld. A DLP scan that finds something writes dlp.scan (type
// dlp) with types and counts, as every scan in the service does.
//
// # Nothing sensitive leaves
//
// Tools never echo sample values or input values. DLP findings are reported by type,
// JSON path, masked sample (at most four characters at each end) and confidence. Every
// result document is also scanned with the record policy before it is sent, so a secret
// that slipped into a field name, an id or a message is redacted.
//
// # The tools
//
//   - field_mapping_suggest reads each field name as a concept (postal code, company
//     name, tracking number...) plus qualifiers (billing, shipping, line, secondary...)
//     after splitting camelCase, snake_case, kebab-case and glued words, expanding
//     abbreviations and stemming plurals. Same concept and qualifiers score high, related
//     concepts lower, different qualifiers (billing vs shipping) low; names without a known
//     concept fall back to shared words. Type compatibility weights the name score, and
//     the formats seen in sampleData (emails, ISO dates, currency and country codes,
//     phone numbers, postal codes, numbers...) confirm or contradict it. Each target gets
//     at most one source and each source is used once, best pairs first. Required targets
//     left unmapped are listed. The default confidenceThreshold is 0.5. With a
//     configured AI client, a call whose _meta carries "dev.syncassist/aiRefine": true
//     has the ambiguous targets (best score 0.3..0.75, or a runner-up within 0.1) refined
//     by the governed AI client, which anonymizes the prompt; the rules' candidates bound
//     the model's choice.
//   - integration_status counts the caller tenant's processed sync errors per status,
//     diagnosis state and error class and lists the newest ones; see integrationStatus
//     for the filters.
//   - governance_check predicts what the guarded write would do with a proposed write
//     {"entity", "recordId", "fields"} from sourceSystem to targetSystem: ownership
//     (manifest), loop (ledger), DLP (connector-write policy) and the guard's refusal of
//     masked values (governance.MaskedFields), without executing,
//     recording or alerting anything. Its decision is the strictest of allow,
//     allow_with_drops, require_approval and deny. Other input shapes are DLP-scanned only.
//   - mcp_discover lists the tenant's external tools (<server>.<tool>) from an
//     ExternalTools source: StaticExternalTools (in memory, or ParseExternalTools of a JSON
//     configuration) or TenantExternalTools (the tenant setting mcp.external_tools).
package toolcatalog
