// Package blueprint declares the service's deployable shape once: its DynamoDB tables
// (keys, indexes, TTL), its SQS queues (redrive, visibility) and its functions (trigger,
// route, the tables and queues each may touch). The CDK stack and the local stack both
// build from these values, so a key schema or a grant cannot drift between AWS and a
// developer's machine.
package blueprint

import (
	"fmt"
	"time"
)

// AttrType is a DynamoDB key attribute type.
type AttrType string

// Key attribute types used by the service.
const (
	String AttrType = "S"
	Number AttrType = "N"
)

// Key is one key attribute.
type Key struct {
	Name string
	Type AttrType
}

// Projection is what a global secondary index copies of an item besides the table's and
// the index's keys. The zero value projects every attribute (ALL); an index whose readers
// need less projects less, since every write of an item rewrites each index entry whose
// projected attributes it changes, billed by the entry's size. An existing index's
// projection cannot be changed in place: DynamoDB's UpdateTable changes an index's
// throughput only and creates or deletes one index per call (API reference,
// GlobalSecondaryIndexUpdate, https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexUpdate.html),
// so a deployed stage takes a new projection as a delete and a create of the index.
type Projection struct {
	// KeysOnly projects the keys alone; a reader that needs more reads the rows.
	KeysOnly bool
	// Include names the non-key attributes projected (INCLUDE); empty with KeysOnly false
	// is ALL.
	Include []string
}

// Type is the projection's DynamoDB name: ALL, KEYS_ONLY or INCLUDE.
func (p Projection) Type() string {
	switch {
	case p.KeysOnly:
		return "KEYS_ONLY"
	case len(p.Include) > 0:
		return "INCLUDE"
	}
	return "ALL"
}

// Index is a global secondary index.
type Index struct {
	Name         string
	PartitionKey Key
	SortKey      *Key
	Projection   Projection
}

// Table is a DynamoDB table. Name is the logical name; PhysicalName adds the stage.
type Table struct {
	Name         string
	PartitionKey Key
	SortKey      *Key
	Indexes      []Index
	// TTLAttribute names the epoch-seconds attribute DynamoDB expires items by, if any.
	TTLAttribute string
	// EnvVar is the environment variable that carries the physical name to a function.
	EnvVar string
}

// Queue is an SQS queue with an optional dead-letter queue.
type Queue struct {
	Name              string
	EnvVar            string
	VisibilityTimeout time.Duration
	Retention         time.Duration
	// MaxReceiveCount is how many receives a message gets before it moves to the DLQ.
	MaxReceiveCount int
	DeadLetter      *Queue
}

// Logical names of the service's tables. Every partition key starts with the tenant, so
// no query can cross tenants.
const (
	TableProcessed = "sync_error_assist_processed"
	TableTenants   = "tenant_config"
	TableAudit     = "audit_logs"
	TableAIRecords = "ai_records"
	// TableEmbeddedSessions holds embedded sessions: service-token hashes, their module
	// contexts and the replay guards of host bootstraps.
	TableEmbeddedSessions = "embedded_sessions"
)

// Index names on the processed table.
const (
	// IndexByStatus lists a tenant's claims in one operator status, newest first.
	IndexByStatus = "by_status"
	// IndexByDiagnosis finds a tenant's claims in one diagnosis state by how long they
	// have been in it; the reconcile uses it to find stuck claims. Sparse: only queued and
	// diagnosing claims carry its key, so a diagnosis that ends deletes one entry.
	IndexByDiagnosis = "by_diagnosis"
	// IndexDocsByTime lists a tenant's documents of one kind by time, newest first:
	// sparse, only documents with a time (the automation records) carry its keys.
	IndexDocsByTime = "docs_by_time"
	// IndexByActionType lists a tenant's audit records of one action type by time. Sparse:
	// the machine types (dlp, ai, connector), written on every sync error and flow event,
	// carry no key, since an entry is a WRU per record and a query for them finds them
	// densely on the tenant's partition (shared/audit/store_dynamo.go, denseType).
	IndexByActionType = "by_action_type"
)

// ByStatusAttributes are the claim row's attributes the by_status index projects: what
// its readers read of a listed row (issue 37 §1). The queue's listing and its summary
// (record fields, status, diagnosis, proposal, escalation from history, the retry and
// recurrence view, triage), its filters (search_ids, search_msg, assignee, tags,
// system_name, external_system, proposal's class), the approval rule of a row (proposal:
// the proposal's listed part, its class, fix, confidence and source; edited_fix), insights
// (applied_at, updated_at), the assistant's status tool (customer_ids for its customer
// filter, the ids its context and payload hold; integration), and the filters of the
// lease and retry sweeps (lease_expires_at, retry_next_at), which then read their rows
// whole. Left out: what only a row's detail or a worker reads (proposal_more: the
// proposal's summary, rationale and inference, most of its size; payload and context, as
// large as the host sends them; diagnosis_since, diagnosis_attempts, diagnosis_error,
// webhook_id, lease and write tokens, applied_prior, the revert marks revert_marked,
// revert_marks and revert_sent (the first marking version's single mark), retry_log,
// signature, error_keys): a write that changes only those writes nothing to the index.
var ByStatusAttributes = []string{
	"error_id", "record_type", "record_id", "error_code", "message", "integration", "external_system", "system_name",
	"direction", "customer_ids", "occurred_at", "search_ids", "search_msg",
	"status", "diagnosis", "source", "claimed_at", "updated_at", "proposal", "edited_fix", "history", "apply_error",
	"applied_key", "applied_at", "lease_expires_at",
	"assignee", "tags", "notes",
	"resolution", "retry_attempts", "retry_error", "retry_next_at", "occurrences", "first_seen", "last_seen", "recurrence_of",
}

var sk = func(name string) *Key { return &Key{Name: name, Type: String} }

// Processed holds one row per claimed sync error: the claim, the diagnosis and the
// operator's outcome; and, under keys starting with "~" (in no index of rows), each
// tenant's poll watermark and the queue's documents: the approval policy, what was learned
// from decisions ("~kn#…"), the automation records ("~auto#<row>", also in
// IndexDocsByTime), co-approvals and the auto-apply counter. Only the webhook-ids of the
// ingest's replay check ("~whid#…") carry the TTL attribute: they expire after a week.
var Processed = Table{
	Name:         TableProcessed,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	SortKey:      sk("id"),
	Indexes: []Index{
		{Name: IndexByStatus, PartitionKey: Key{Name: "status_key", Type: String}, SortKey: sk("claimed_sort"),
			Projection: Projection{Include: ByStatusAttributes}},
		// The reconcile reads a stuck row's id and diagnosis_since only (both keys here),
		// and the diagnosis it asked for.
		{Name: IndexByDiagnosis, PartitionKey: Key{Name: "diagnosis_key", Type: String}, SortKey: sk("diagnosis_since"),
			Projection: Projection{KeysOnly: true}},
		{Name: IndexDocsByTime, PartitionKey: Key{Name: "doc_list", Type: String}, SortKey: sk("doc_sort")},
	},
	TTLAttribute: "expires_at",
	EnvVar:       "TABLE_PROCESSED",
}

// Tenants holds one item per tenant: its settings and its webhook secrets.
var Tenants = Table{
	Name:         TableTenants,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	EnvVar:       "TABLE_TENANTS",
}

// Audit is the persistent audit log: one item per governance-relevant action, sorted by
// time within the tenant. Only the rare action types a person looks for are in
// by_action_type: the machine types are most of the records, each entry would be one more
// WRU per record, and a query for them reads the tenant's partition filtered on the type.
var Audit = Table{
	Name:         TableAudit,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	SortKey:      sk("sort"),
	Indexes: []Index{
		{Name: IndexByActionType, PartitionKey: Key{Name: "tenant_action", Type: String}, SortKey: sk("sort")},
	},
	EnvVar: "TABLE_AUDIT",
}

// AIRecords holds what the governed AI client leaves behind per inference: the reasoning
// trace ("trace#<inference>#<operation>") and the inference's cost records, one item with
// an attribute per operation ("cost#<inference>", shared/audit/airecords_costs.go), one
// table because both are keyed by tenant and inference. Traces expire; costs do not.
var AIRecords = Table{
	Name:         TableAIRecords,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	SortKey:      sk("record"),
	TTLAttribute: "expires_at",
	EnvVar:       "TABLE_AI_RECORDS",
}

// EmbeddedSessions holds, per tenant, the embedded sessions' service tokens (only their
// SHA-256 hash, "tok#<hash>"), the module contexts opened with them ("ctx#<session>#<id>")
// and the webhook ids of host bootstraps already used ("req#<hash>"). Everything expires;
// TTL is the backstop of the session reaper.
var EmbeddedSessions = Table{
	Name:         TableEmbeddedSessions,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	SortKey:      sk("sk"),
	TTLAttribute: "expires_at",
	EnvVar:       "TABLE_EMBEDDED_SESSIONS",
}

// TableGovernance holds the guarded write's records; IndexByApprovalStatus lists a
// tenant's ownership approvals in one status and reason, newest first.
const (
	TableGovernance       = "governance"
	IndexByApprovalStatus = "by_approval_status"
)

// Governance holds, per tenant, what the guarded write leaves behind: ownership
// rejections ("rej#<time>#<id>") and loop detections ("loop#<time>#<id>"), both expiring
// after 30 days (the audit log keeps the permanent trail), pending ownership approvals
// ("appr#<id>"), the write ledger the loop detector reads
// ("ledger#<entity>#<recordId>#<time>#<id>", expiring after a day) and the tenant's
// manifest overrides ("manifest").
var Governance = Table{
	Name:         TableGovernance,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	SortKey:      sk("record"),
	Indexes: []Index{
		{Name: IndexByApprovalStatus, PartitionKey: Key{Name: "tenant_status", Type: String}, SortKey: sk("approval_sort")},
	},
	TTLAttribute: "expires_at",
	EnvVar:       "TABLE_GOVERNANCE",
}

// TableFinanceApprovals holds the finance approval rows; IndexFinanceByStatus lists a
// tenant's rows in one status by creation time, and finds expired approve leases.
const (
	TableFinanceApprovals = "finance_approvals"
	IndexFinanceByStatus  = "by_tenant_status"
)

// FinanceApprovals holds one row per finance approval the host ERP created, keyed by the
// host's approval id; "tenant_status" is "<tenant>#<status>" and "created_sort" is the
// creation time then the id, so a listing is one query, newest first.
var FinanceApprovals = Table{
	Name:         TableFinanceApprovals,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	SortKey:      sk("id"),
	Indexes: []Index{
		{Name: IndexFinanceByStatus, PartitionKey: Key{Name: "tenant_status", Type: String}, SortKey: sk("created_sort")},
	},
	EnvVar: "TABLE_FINANCE_APPROVALS",
}

// TableFlows holds the flows feature's items; IndexRunsByTime lists a tenant's runs
// newest first and IndexRunsDue finds its retrying runs by when they are due.
const (
	TableFlows      = "flows"
	IndexRunsByTime = "runs_by_time"
	IndexRunsDue    = "runs_due"
)

// Flows holds, per tenant, its flow definitions ("flow#<id>") and the runs of the change
// events they received ("run#<id>"). Each event has a key of its own, "run#" and its
// flow.EventRunID: the run of an event of one run, else a marker with the ids of the runs
// it started (events before 2026-11-30 kept theirs at "event#<system>#<eventId>"). Events
// expire after 30 days, runs 30 days after they last changed (a held run is saved at each
// check of its approval). "runs_key" is set on runs only and "due_key" on retrying runs
// (the tenant) and held runs waiting on their approval ("<tenant>#held") only, so both
// indexes are sparse and neither sees a marker.
var Flows = Table{
	Name:         TableFlows,
	PartitionKey: Key{Name: "tenant_id", Type: String},
	SortKey:      sk("sk"),
	Indexes: []Index{
		{Name: IndexRunsByTime, PartitionKey: Key{Name: "runs_key", Type: String}, SortKey: sk("created_sort")},
		{Name: IndexRunsDue, PartitionKey: Key{Name: "due_key", Type: String}, SortKey: sk("due_at")},
	},
	TTLAttribute: "expires_at",
	EnvVar:       "TABLE_FLOWS",
}

// Tables lists every table the service owns.
var Tables = []Table{Processed, Tenants, Audit, AIRecords, EmbeddedSessions, Governance, FinanceApprovals, Flows}

// DiagnosisWorkerTimeout bounds one diagnosis batch; the queue's visibility timeout is six
// times this, as AWS recommends for SQS event sources.
const DiagnosisWorkerTimeout = 60 * time.Second

// DiagnosisMaxConcurrency caps the diagnosis worker's concurrent batches (see the
// worker's blueprint entry).
const DiagnosisMaxConcurrency = 20

// DiagnosisDLQ receives diagnosis messages that failed MaxReceiveCount times.
var DiagnosisDLQ = Queue{
	Name:      "diagnosis-dlq",
	EnvVar:    "DIAGNOSIS_DLQ_URL",
	Retention: 14 * 24 * time.Hour,
}

// Diagnosis carries claimed sync errors from ingest (and the reconcile) to the worker.
var Diagnosis = Queue{
	Name:              "diagnosis",
	EnvVar:            "DIAGNOSIS_QUEUE_URL",
	VisibilityTimeout: 6 * DiagnosisWorkerTimeout,
	Retention:         4 * 24 * time.Hour,
	MaxReceiveCount:   5,
	DeadLetter:        &DiagnosisDLQ,
}

// Queues lists every queue the service owns, dead-letter queues first so that a creator
// walking the list in order finds each DLQ before the queue that redrives to it.
var Queues = []Queue{DiagnosisDLQ, Diagnosis}

// PhysicalName is the deployed name of a table or queue in a stage: "<stage>-<name>".
func PhysicalName(stage, name string) string {
	return fmt.Sprintf("%s-%s", stage, name)
}
