// Package connector owns the REST clients for the five production systems the service
// reads from and writes to: the host ERP, a second ERP, a CRM, a marketing platform and a
// shipping platform. One generic Client serves all five; what differs between them (the
// path layout, and whether the system lists sync errors) is one row of a table, so a sixth
// system is a new row, not a new client.
//
// # Governance
//
// Reads (Get, ListSyncErrors) may be called by anyone who needs a before-value or the
// reconcile's view of the host ERP's sync errors. Writes may not: Client.Write is called
// only by the guarded-write function in shared/governance, which checks ownership, loops
// and DLP before it, and an architecture test elsewhere fails the build if anything else
// calls it. The connector itself therefore does no policy work; it carries the writer's
// origin tag (header X-Origin-System) so target systems and the loop detector can see who
// wrote.
//
// # Path conventions
//
// {base} is Config.BaseURL, which may carry a path prefix (the local stack mounts the fakes
// under one). Entity and id are path-escaped segments; "." and ".." are refused.
//
//	hosterp    GET/PATCH {base}/api/records/{entity}/{id}
//	           GET       {base}/api/sync-errors?since=<RFC 3339>&cursor=<opaque>&limit=<n>
//	erp2       GET/PATCH {base}/v2/{entity}/{id}
//	crm        GET/PATCH {base}/crm/v1/objects/{entity}/{id}
//	marketing  GET/PATCH {base}/marketing/v3/{entity}/{id}
//	shipping   GET/PATCH {base}/shipping/v1/{entity}/{id}
//
// Every request carries Authorization: Bearer <Config.Token> when a token is configured.
// A record is the JSON object {"id", "entity", "fields": {...}, "version"}; a PATCH body is
// {"fields": {...}} holding only the fields to change, and the answer is the whole record
// after the change. Numbers in fields are decoded as json.Number, so amounts and large ids
// reach the caller (and the governance ledger's payload hash) exactly as the system sent
// them. An error body is {"code", "message"}; only the code is kept, because messages may
// quote customer data. The sync-error listing answers {"items": [...], "nextCursor": "..."}
// where each item is a record in the ingest webhook's body format, ordered by occurredAt;
// since is inclusive (a watermark may repeat a record, the claim path drops duplicates,
// while an exclusive bound could skip records sharing the watermark's timestamp), and an
// empty nextCursor means the last page.
//
// # Errors and retries
//
// Every failure is an *Error that unwraps to one sentinel (ErrNotFound, ErrConflict,
// ErrValidation, ErrUnauthorized, ErrRateLimited, ErrUnavailable, ErrUnsupported) and, for
// transport failures, to the underlying cause, so errors.Is(err, context.DeadlineExceeded)
// also works. Error strings hold the system, operation, status, the system's error code and
// transport text, never response bodies or field values.
//
// Transient failures are retried with exponential backoff and full jitter: 429 and 503
// honouring Retry-After up to Config.MaxRetryAfter (a longer Retry-After is returned to the
// caller at once, with Error.RetryAfter set, rather than clamped, since retrying before the
// system asked is what got us limited), 502/503/504, per-attempt timeouts and refused or
// reset connections. 4xx other than 429 is never retried, and neither is 500: a server bug
// rarely heals within a second. Writes are retried only because every attempt carries the
// same Idempotency-Key, so a write whose answer was lost is replayed by the system, not
// applied twice. A retry is made only if its wait ends before ctx's deadline.
//
// Config.Timeout bounds each attempt, not the call; ctx bounds the call.
package connector
