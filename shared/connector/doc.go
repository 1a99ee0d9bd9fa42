// Package connector owns the REST clients for the five production systems the service
// reads from and writes to: the host ERP (Oracle NetSuite), a second ERP (Microsoft
// Dynamics 365 Business Central), a CRM (Salesforce), a marketing platform (Mailchimp) and
// a shipping platform (ShipStation). One Client serves all five, with one retry loop and
// one error taxonomy; what differs is each vendor's published API, kept in a profile per
// vendor (netsuite.go, businesscentral.go, salesforce.go, mailchimp.go, shipstation.go,
// each naming its documentation at the top). A sixth system is a sixth profile.
//
// # Governance
//
// Reads (Get, ListSyncErrors) may be called by anyone who needs a before-value or the
// reconcile's view of the host ERP's sync errors. Writes may not: Client.Write is called
// only by the guarded-write function in shared/governance, which checks ownership, loops
// and DLP before it, and an architecture test elsewhere fails the build if anything else
// calls it. The connector itself therefore does no policy work; it carries the writer's
// origin tag (header X-Origin-System) and the write's idempotency key (header
// Idempotency-Key) on every request of a write, so target logs and the fakes can see who
// wrote and tie a write's requests together.
//
// # Path conventions
//
// {base} is Config.BaseURL, which may carry a path prefix (the local stack mounts the fakes
// under one). Entity and id are path-escaped; "." and ".." are refused.
//
//	hosterp    NetSuite: {base} is https://{account}.suitetalk.api.netsuite.com
//	           GET/PATCH {base}/services/rest/record/v1/{recordType}/{id}  (PATCH: 204 + Location)
//	           POST      {base}/services/rest/query/v1/suiteql?limit=&offset=  (Prefer: transient)
//	erp2       Business Central: {base} ends in /api/v2.0/companies({companyId})
//	           GET/PATCH {base}/{entitySet}({id})  (GUID ids bare, others as '...'; PATCH: If-Match, 200)
//	crm        Salesforce: {base} is the org's instance URL
//	           GET/PATCH {base}/services/data/v62.0/sobjects/{SObject}/{id}  (PATCH: 204)
//	           GET/PATCH {base}/services/data/v62.0/sobjects/{SObject}/{ExternalIdField}/{value}
//	                     with WriteRequest.UpsertKey  (201 created, 200/204 updated)
//	marketing  Mailchimp: {base} is https://{dc}.api.mailchimp.com; entity is the list id,
//	           id the member's e-mail (or its subscriber hash, MD5 of the lower-cased address)
//	           GET/PUT   {base}/3.0/lists/{listId}/members/{subscriberHash}  (PUT: upsert, 200)
//	shipping   ShipStation: {base} is https://ssapi.shipstation.com; entity is the resource
//	           ("orders"), id its numeric id
//	           GET       {base}/{resource}/{id}
//	           POST      {base}/orders/createorder  (the whole order; upsert by orderKey)
//	           PUT       {base}/{resource}/{id}     (other resources, whole)
//
// Creates, upserts by an external id (WriteRequest.Create, UpsertKey) and finds by a
// field's value (Find) follow each vendor's own answer; create.go lists them.
//
// A Record's Fields are the vendor's body without its envelope (NetSuite's links and id,
// OData annotations, Salesforce's attributes and Id, Mailchimp's _links and id, an order's
// orderId); its Version is the vendor's concurrency token (lastModifiedDate, the ETag,
// SystemModstamp, last_changed, modifyDate). Numbers are decoded as json.Number, so
// amounts and large ids reach the caller (and the governance ledger's payload hash) exactly
// as the system sent them.
//
// The host ERP's sync errors are the custom record customrecord_sea_sync_error of the
// NetSuite SDF project in netsuite/ (custrecord_sea_error_id, _record_type, _record_id,
// _error_code, _message, _payload as JSON text, _occurred_at as ISO text,
// _external_system, _direction). ListSyncErrors reads them with SuiteQL, oldest first, and
// maps each row to the ingest webhook's body format (tenantId from Config.TenantID) the
// way the project's user-event script builds its post from the same record, so a record
// the webhook delivered and the reconcile polls is one claim: an empty error id is
// "ns-sync-error-" and the internal id (FallbackErrorIDPrefix), text is trimmed, the
// direction lower-cased, and a direction, payload or time the ingest would reject goes to
// context as text (a record whose time does not parse is then refused by the ingest
// validation, where the script would send its creation time instead). since is
// inclusive, to the second (a watermark may repeat a record, the claim path drops
// duplicates, while an exclusive bound could skip records sharing the watermark's
// timestamp). The cursor is "offset.limit": NetSuite pages by offset in multiples of the
// page size, so the first page's size is kept; an empty NextCursor means the last page.
//
// # Authentication and configuration
//
// Config keeps one secret, Token, already stored sealed per tenant (shared/tenant), and
// redacted by Config's String, GoString and LogValue; error texts never hold it. How it is
// sent is the profile's:
//
//	NetSuite                    Authorization: Bearer <Token>, or with Config.TokenURL set,
//	                            Token is a NetSuiteCredential (client ID, certificate ID,
//	                            private key) whose key signs the M2M grant's JWT client
//	                            assertion (netsuite_m2m.go; Config.Scope, default
//	                            rest_webservices, goes into the assertion)
//	Business Central            Authorization: Bearer <Token>, or with Config.TokenURL set,
//	                            Token is "clientId:clientSecret" for the OAuth 2.0
//	                            client-credentials grant (client_secret_post, Config.Scope
//	                            sent when set); for both, the access token is cached until a
//	                            minute before it expires, and a 401 fetches a new one once
//	Salesforce                  Authorization: Bearer <Token>
//	Mailchimp                   HTTP Basic when Token is "anystring:apikey", else Bearer
//	ShipStation                 HTTP Basic; Token is "apiKey:apiSecret"
//
// TokenURL and Scope are not secret and sit beside the base URL in the tenant's connector
// configuration (tenantctl connector -token-url, or tokenUrl in PATCH /api/settings).
//
// # Idempotency
//
// None of the five keeps an idempotency store for synchronous writes, so Write is
// read-compare-write: it reads the record, and when every field to write already holds its
// value (objects compared as subsets, numbers by value) it reports Replayed and sends
// nothing. A write whose answer was lost is therefore not applied twice when retried, by
// the client or by the caller. IfVersion is checked against that read, and by Business
// Central itself through If-Match and by Salesforce through If-Unmodified-Since; Business
// Central answers a stale ETag with 409 Request_EntityChanged and Salesforce a record
// changed since with 412, which Write answers by reading again and writing once more
// (unless IfVersion pinned the version). Upserts are keyed by what the vendor keys them by: Salesforce's external id,
// Mailchimp's subscriber hash, ShipStation's orderKey.
//
// # Errors and retries
//
// Every failure is an *Error that unwraps to one sentinel (ErrNotFound, ErrConflict,
// ErrValidation, ErrUnauthorized, ErrRateLimited, ErrUnavailable, ErrUnsupported) and, for
// transport failures, to the underlying cause, so errors.Is(err, context.DeadlineExceeded)
// also works. The HTTP status decides the sentinel, and the profile reads the vendor's
// error body for its code only: NetSuite's o:errorDetails[0].o:errorCode, OData's
// error.code, Salesforce's [0].errorCode, Mailchimp's problem title; ShipStation v1 sends
// none ({"Message","ModelState"}). Messages and details are dropped, since they quote
// customer data; error strings hold the system, operation, status, code and transport text
// only. Vendor meanings: Salesforce's 403 REQUEST_LIMIT_EXCEEDED (the org's rolling daily
// limit) is ErrRateLimited and not retried within the call; its 300 (an external id
// matching several records, the body their list) is ErrConflict naming how many; its
// UNABLE_TO_LOCK_ROW (a record lock another transaction held past Salesforce's wait; clients
// see 400) is ErrUnavailable, retried below like a 503, but a save that failed whole, so
// never MayHaveApplied; ShipStation's 429 is ErrRateLimited handed back at once with
// X-Rate-Limit-Reset as RetryAfter. What each vendor documents is kept in
// shared/connector/vendors.
//
// Transient failures are retried with exponential backoff and full jitter: 429 and 503
// honouring Retry-After (ShipStation: X-Rate-Limit-Reset) up to Config.MaxRetryAfter (a
// longer wait is returned to the caller at once, with Error.RetryAfter set, rather than
// clamped, since retrying before the system asked is what got us limited), 502/503/504,
// per-attempt timeouts and refused or reset connections. 4xx other than 429 (and
// Salesforce's lock refusal) is never retried, and neither is 500: a server bug rarely
// heals within a second. A retried write request is safe because each sets absolute values
// (PATCH, PUT, createorder by orderKey) and the surrounding read-compare-write finds an
// applied write in place; a write's own request is sent again as it stands only after a
// failure that shows it was not applied (429, a lock refusal, a refused connection). A
// retry is made only if its wait ends before ctx's deadline. Once an attempt of a write went unanswered
// (a timeout, a reset, a gateway's 502/504), the write fails as that attempt did
// (ErrUnavailable, MayHaveApplied, not Answered) whatever the later attempts were told,
// a 429 or a refused connection included: none of them shows that request did not commit.
// Their failure is in Error.Later. So does a write whose request was answered 2xx but
// whose record could not be read back after it: the write landed, and the read's 429 or
// refused connection must not pass for its answer.
//
// Config.Timeout bounds each attempt, not the call; ctx bounds the call.
package connector
