package syncerror

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"
)

// WebhookIDTTL is how long a webhook-id is remembered. The replay check needs only the
// signature's timestamp tolerance (5 minutes: an older request fails its signature check
// before it gets here); the redelivery rule wants the id as long as a host re-sends a
// saved record under it. Seven days covers both with a margin; that hosts re-send within
// a week is an assumption. Past it the item is deleted by the table's TTL (expires_at),
// and treated as absent before that, so nothing depends on when DynamoDB deletes it.
const WebhookIDTTL = 7 * 24 * time.Hour

// Arrival is how a sync error arrived: the webhook-id (or flow run) it came with and, for
// a signed webhook whose id must be checked, the message that id names: the sync error's
// ErrorKey. Standard Webhooks makes a webhook-id one message's: the same id for the same
// sync error is a redelivery, its body edited or not, answered as the duplicate it is; the
// same id for another sync error is a replay (ErrReplayed), as the flow route refuses an id
// used for another event. An Arrival without a message (reconcile, flows, and a webhook
// whose id is its sync error's HostMessageID) is not checked.
type Arrival struct{ WebhookID, Message string }

// Checked reports whether the replay check applies to d.
func (d Arrival) Checked() bool { return d.WebhookID != "" && d.Message != "" }

// WebhookArrival is the arrival of sync error errorID of tenantID under webhookID. An id
// that is the error's HostMessageID names this sync error by construction, so it needs no
// record of what it named: the webhook's ingest then makes one conditional write fewer (the
// errorId's record and the fold, issue 37 §0). Another message under that id has another
// errorId, whose HostMessageID it is not, so it is checked against the record like any
// other id; only a sender holding the tenant's secret and computing another error's id
// could reuse one unnoticed, and such a sender can sign any message anyway.
func WebhookArrival(tenantID, errorID, webhookID string) Arrival {
	if webhookID == HostMessageID(tenantID, errorID) {
		return Arrival{WebhookID: webhookID}
	}
	return Arrival{WebhookID: webhookID, Message: ErrorKey(errorID)}
}

// HostMessageID is the webhook-id the host ERP's script sends for a sync error
// (netsuite/…/sea_sync_error_ue.js, messageId): "msg_" and the first 32 hex digits of
// SHA-256(tenantId "\n" errorId). Derived from the error, it is kept by a second save of
// the record, which Standard Webhooks makes a redelivery of the same message.
func HostMessageID(tenantID, errorID string) string {
	sum := sha256.Sum256([]byte(tenantID + "\n" + errorID))
	return "msg_" + hex.EncodeToString(sum[:16])
}

// ErrReplayed is a webhook-id recorded before for another sync error. Nothing was stored.
// The check and the record are one conditional write, so of two concurrent first uses of
// one id for different errors exactly one passes.
var ErrReplayed = errors.New("syncerror: webhook-id already used for another sync error")
