package syncerror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// Recurring errors fold. A sync error whose signature (tenant, system, record type,
// record id, error code, and message with numbers and ids normalised) matches a row that
// is still open is an occurrence of that row, not a new row. Once the row is closed, the
// same signature opens a new row flagged as a recurrence of the closed one.
//
// How (issue 37 §0: the webhook's path makes no read and one write per item it must
// change). A signature's open row is keyed by the signature and a generation:
// ClaimID(tenant, "sig:"+signature+"#"+generation), so the fold is a conditional write
// of the row itself: create it if absent; else, if it is still open and has not seen
// this errorId, ADD one occurrence (FoldStore.Fold; the DynamoDB store puts a row it has
// not seen and counts on one it has with a short update, guessing which from what it
// folded in this process). DynamoDB applies each write to one item atomically, so
// concurrent posts serialise on that row: each adds exactly one occurrence, and the first
// creates it. A row keeps MaxErrorKeys keys; past that, a count is conditional on the
// key's slot among the row's last keys (FoldStore.Fold), and the errorId's record keeps
// the row for a later redelivery. The generation is not read first: a signature's rows are
// deleted only with the tenant's rows (erasure; a row gone is made again, and closed keys
// that outlive their row answer nothing), so generation 0 is right for every signature
// not seen closed, and the generation last folded into is remembered per store in this
// process (genHints); a guess that finds its row closed is the slow path below, which
// reads the signature's state. Only a post that finds the row closed writes more: it
// advances the signature's generation (conditional on the one it read, so concurrent
// posts advance it once) and keeps the closed row's error keys there, so a late redelivery of an errorId of the closed row is still a
// duplicate, then creates the next generation's row.
//
// Before the fold, one conditional put per guard, both in one round trip as they are
// independent items: the errorId's record (ClaimErrorKey: the first post of an errorId
// records the signature it came with; a later one is a redelivery, looked up on that
// signature's rows, so it is a duplicate even when its content, and so its signature,
// changed) and, for a signed webhook whose id is not its error's HostMessageID, the
// webhook-id's (RecordWebhookID: another message under a known id is a replay, refused
// before anything of it is folded). A new errorId cannot be a late copy of a closed row's
// error, which is why the fold may guess its generation. So the webhook's ingest is
// usually two single-item conditional writes in two round trips, no read, and one send for
// a new row, when the webhook-id is the one the host ERP's script derives from the errorId
// (HostMessageID: it needs no record); another sender's id adds its record, side by side
// with the errorId's. A recurrence of a row the function instance has not folded into
// costs one refused put more (the DynamoDB store's Fold guesses create or count). Fewer
// writes would drop a guarantee: the duplicate rule is keyed by the errorId and the fold
// by the signature, two items, and the local emulator (dynalite) has no
// TransactWriteItems to change them in one call (LOCAL-AWS.md).

// FoldResult is what a post did to its signature's row.
type FoldResult int

// Fold results.
const (
	FoldCreated    FoldResult = iota // a new row (possibly a recurrence)
	FoldOccurrence                   // one more occurrence of the open row
	FoldDuplicate                    // the errorId was seen already: nothing changed
	FoldClosed                       // the row is closed: advance the generation and post again
)

// MaxErrorKeys bounds the errorId keys a row keeps for the duplicate rule: a count is
// conditional on its key not being among them, so a redelivery racing its first post
// counts once. Past the bound an occurrence is counted without its key, conditional on the
// key not being in its slot among the row's last keys (RecentKeySlot: deliveries of one
// errorId at once meet there), and its errorId's record is then marked with the row
// (MarkErrorKey, a small write more), so a later redelivery is a duplicate. A post whose
// mark does not land (it dies between, or the mark fails twice) leaves a later
// redelivery, once the key's slot has moved on, to count again, or after the row closed to
// open a row: over-counted, never dropped. Every write of a row carries its keys (24 hex
// digits each): at 1000, before 2026-12-01, an occurrence of a hot error's row cost some
// 51 WRU (make cost), and past the bound every redelivery, such as the reconcile's next
// read of the host's list, counted again.
const MaxErrorKeys = 50

// SignatureState is where a signature stands: its generation (how many of its rows were
// closed) and the error keys of the last closed row.
type SignatureState struct {
	Generation int
	ClosedKeys []string
}

// FoldStore folds posts into their signature's row.
type FoldStore interface {
	// SignatureState returns the signature's state (zero when it has none).
	SignatureState(ctx context.Context, tenantID, signature string) (SignatureState, error)
	// Fold creates c (keyed by its signature and generation) if absent, or counts one
	// more occurrence at c.ClaimedAt if the row is open and has not seen errorKey: among
	// its keys, which it keeps errorKey with while it holds fewer than MaxErrorKeys, or in
	// errorKey's RecentKeySlot past them. It returns the row as it stands after the write
	// (as before it, for FoldDuplicate and FoldClosed).
	Fold(ctx context.Context, c Claim, errorKey string) (FoldResult, Claim, error)
	// AdvanceSignature moves the signature from generation gen to gen+1, keeping keys as
	// the closed row's error keys. ErrStateChanged when it is no longer at gen.
	AdvanceSignature(ctx context.Context, tenantID, signature string, gen int, keys []string) error
	// ClaimErrorKey records that errorKey first arrived with signature, unless it is
	// recorded: one conditional write. It returns the record as it stood when it was.
	ClaimErrorKey(ctx context.Context, tenantID, errorKey, signature string) (prior ErrorRecord, claimed bool, err error)
	// MarkErrorKey records on errorKey's record the row its post was counted on without
	// the key (past MaxErrorKeys), with the row's ClaimedAt, which a redelivery then reads
	// (ErrorRecord.RowID, RowClaimedAt). ErrNotFound when there is no record.
	MarkErrorKey(ctx context.Context, tenantID, errorKey, rowID string, rowClaimedAt time.Time) error
	// RecordWebhookID records a checked arrival's webhook-id with its message, expiring at
	// now+WebhookIDTTL, unless the id is recorded and not expired: one conditional write.
	// It returns the message the id was first recorded with, and whether this call did.
	RecordWebhookID(ctx context.Context, tenantID string, d Arrival, now time.Time) (firstMessage string, recorded bool, err error)
}

// ErrorRecord is what an errorId was first recorded with: the signature of its first
// post; and the row it was counted on when that row keeps no key of it (MarkErrorKey, with
// the row's ClaimedAt, so a row deleted and made again under that id is not taken for it),
// or folded into (records written before signatures were).
type ErrorRecord struct {
	Signature, RowID string
	RowClaimedAt     time.Time
}

var (
	uuidPattern   = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	hexIDPattern  = regexp.MustCompile(`(?i)\b[0-9a-f-]{12,}\b`)
	numberPattern = regexp.MustCompile(`[0-9]+([.,][0-9]+)*`)
	spacePattern  = regexp.MustCompile(`\s+`)
)

// NormalizeMessage makes messages that differ only in numbers and ids equal: uuids and
// hex ids of 12 or more characters become "<id>", runs of digits "#", and case and
// spacing are folded.
func NormalizeMessage(m string) string {
	m = uuidPattern.ReplaceAllString(m, "<id>")
	m = hexIDPattern.ReplaceAllStringFunc(m, func(s string) string {
		if strings.ContainsAny(s, "0123456789") {
			return "<id>"
		}
		return s
	})
	m = numberPattern.ReplaceAllString(m, "#")
	return strings.ToLower(strings.TrimSpace(spacePattern.ReplaceAllString(m, " ")))
}

// Signature is the hex SHA-256 of what makes two sync errors the same error.
func Signature(r Record) string {
	h := sha256.New()
	for _, part := range []string{r.TenantID, r.ExternalSystem, r.Direction, r.RecordType, r.RecordID, r.ErrorCode,
		NormalizeMessage(r.Message)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// SignatureRowID is the id of the row of a signature's generation.
func SignatureRowID(tenantID, signature string, gen int) string {
	return ClaimID(tenantID, "sig:"+signature+"#"+strconv.Itoa(gen))
}

// RowID is the id of the first row the record opens (its signature's generation 0): the
// row a test or a tool finds a freshly posted error under.
func RowID(r Record) string { return SignatureRowID(r.TenantID, Signature(r), 0) }

// ErrorKey is the key the duplicate rule keeps for an errorId.
func ErrorKey(errorID string) string {
	sum := sha256.Sum256([]byte(errorID))
	return hex.EncodeToString(sum[:12])
}

// maxFoldRounds bounds how often a post follows a signature to its next generation (a
// row closed under it); two suffice unless rows are closed as fast as posts arrive.
const maxFoldRounds = 4

// Fold stores c as its signature's open row or an occurrence of it.
func Fold(ctx context.Context, s ClaimStore, c Claim, d Arrival) (FoldResult, Claim, error) {
	sig, key := Signature(c.Record), ErrorKey(c.Record.ErrorID)
	c.Retry.Signature, c.Retry.Occurrences = sig, 1
	c.Retry.FirstSeen, c.Retry.LastSeen = c.ClaimedAt, c.ClaimedAt
	c.Retry.ErrorKeys = []string{key}
	prior, claimed, err := guard(ctx, s, c, sig, key, d)
	if err != nil {
		return 0, Claim{}, err
	}
	if !claimed {
		// A redelivery: its error is on a row of the signature it first came with, unless
		// that first post never reached its row (then this one folds it).
		row, ok, err := priorRow(ctx, s, c.TenantID, prior, key)
		if err != nil || ok {
			return FoldDuplicate, row, err
		}
	}
	res, row, err := foldRounds(ctx, s, c, sig, key, genHints.get(s, c.TenantID, sig))
	if err == nil && (res == FoldOccurrence || res == FoldDuplicate) && !contains(row.Retry.ErrorKeys, key) {
		markCounted(ctx, s, c.TenantID, key, row)
	}
	return res, row, err
}

// markTimeout bounds markCounted's two tries.
const markTimeout = 3 * time.Second

// markCounted marks errorKey's record with row, which counted it without keeping the key:
// this post's count, or (a duplicate answered from the key's slot) an earlier delivery's
// or the SDK's resend of this one's, whose mark may not have landed. The count landed, so
// the post is answered as what it did whether the mark lands or not; tried twice, an
// unmarked record leaves a later redelivery, once the slot has moved on, to count again.
func markCounted(ctx context.Context, s ClaimStore, tenantID, key string, row Claim) {
	// Not cut short by the request's end: the count it records has landed.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), markTimeout)
	defer cancel()
	var err error
	for range 2 {
		if err = s.MarkErrorKey(ctx, tenantID, key, row.ID, row.ClaimedAt); err == nil {
			return
		}
	}
	httpapi.Logger(ctx).Warn("errorId record not marked with the row it was counted on; a later redelivery would count again",
		"tenant", tenantID, "row", row.ID, "error", err)
}

// guard makes the two guards' conditional puts, side by side: the errorId's record and,
// for a checked arrival, the webhook-id's. ErrReplayed when the id carried another
// message. A replay may leave its errorId recorded: the record decides nothing without
// the row it points to (priorRow), so that errorId's own first post still folds.
func guard(ctx context.Context, s ClaimStore, c Claim, sig, key string, d Arrival) (ErrorRecord, bool, error) {
	var (
		wg        sync.WaitGroup
		first     string
		whErr     error
		whChecked = d.Checked()
	)
	if whChecked {
		wg.Go(func() { first, _, whErr = s.RecordWebhookID(ctx, c.TenantID, d, c.ClaimedAt) })
	}
	prior, claimed, err := s.ClaimErrorKey(ctx, c.TenantID, key, sig)
	wg.Wait()
	switch {
	case whErr != nil:
		return prior, false, whErr
	case whChecked && first != d.Message:
		return prior, false, ErrReplayed
	}
	return prior, claimed, err
}

// priorRow is the row that counted errorKey by its record: the row the record was marked
// with, if it is still the one that counted it (its ClaimedAt), else the signature's row
// holding the key; ok false when there is none (the post that recorded it stored no row).
// A mark without the row's ClaimedAt is trusted only on a record without a signature (one
// written before signatures were, which has no other way to its row).
func priorRow(ctx context.Context, s ClaimStore, tenantID string, prior ErrorRecord, key string) (Claim, bool, error) {
	if prior.RowID != "" && (prior.Signature == "" || !prior.RowClaimedAt.IsZero()) {
		row, err := s.Get(ctx, tenantID, prior.RowID)
		switch {
		case err != nil && !errors.Is(err, ErrNotFound):
			return Claim{}, false, err
		case err == nil && (prior.RowClaimedAt.IsZero() || row.ClaimedAt.Equal(prior.RowClaimedAt)):
			return row, true, nil
		case prior.Signature == "":
			return Claim{}, false, nil
		}
		// Gone, or made again under its id since (a tenant's rows erased): look on the
		// signature's rows, as for a record never marked.
	}
	return rowWithKey(ctx, s, tenantID, prior.Signature, key)
}

// foldRounds folds c at generation gen (a guess: no read), then, while it finds its row
// closed, at the one the signature's state says.
func foldRounds(ctx context.Context, s ClaimStore, c Claim, sig, key string, gen int) (FoldResult, Claim, error) {
	for round := range maxFoldRounds {
		if round > 0 {
			st, err := s.SignatureState(ctx, c.TenantID, sig)
			if err != nil {
				return 0, Claim{}, err
			}
			if contains(st.ClosedKeys, key) && st.Generation > 0 {
				// A duplicate of the closed row, if that row still holds the key: closed keys
				// outlive a row deleted (and maybe made again) since.
				prev, ok, err := heldBy(ctx, s, c.TenantID, sig, st.Generation-1, key)
				if err != nil || ok {
					return FoldDuplicate, prev, err
				}
			}
			gen = st.Generation
		}
		c.ID = SignatureRowID(c.TenantID, sig, gen)
		c.Retry.RecurrenceOf = ""
		if gen > 0 {
			c.Retry.RecurrenceOf = SignatureRowID(c.TenantID, sig, gen-1)
		}
		res, row, err := s.Fold(ctx, c, key)
		if err == nil && (res == FoldCreated || res == FoldOccurrence) {
			genHints.set(s, c.TenantID, sig, gen)
		}
		if err != nil || res != FoldClosed {
			return res, row, err
		}
		if err := s.AdvanceSignature(ctx, c.TenantID, sig, gen, row.Retry.ErrorKeys); err != nil && err != ErrStateChanged {
			return 0, Claim{}, err
		}
	}
	return 0, Claim{}, ErrStateChanged
}

// RecentKeySlots is how many slots a row past its key bound keeps its last keys in, and
// RecentKeySlot the slot of errorKey: deliveries of one errorId at once meet in it, so a
// count past the bound is conditional there as below it on the row's keys. A slot holds
// the last key that fell in it, so it tells only deliveries close in time apart; the
// errorId's record (MarkErrorKey) answers the later ones. The slots are not kept with a
// closed row's keys (SignatureState.ClosedKeys) nor read by rowWithKey; a store's count
// refused on a closed row reads them (FoldStore.Fold), and past the bound its errorIds'
// marks answer. Deliveries at once count once unless another key takes the slot between
// them (then twice: the store's count is sent again).
const RecentKeySlots = 16

// RecentKeySlot is errorKey's slot (0 to RecentKeySlots-1).
func RecentKeySlot(errorKey string) int {
	sum := sha256.Sum256([]byte(errorKey))
	return int(sum[0]) % RecentKeySlots
}

// rowWithKey finds the row of signature sig that holds errorKey: the current
// generation's or, by the signature's closed keys, the one before (reads; only a
// redelivery takes this path).
func rowWithKey(ctx context.Context, s ClaimStore, tenantID, sig, key string) (Claim, bool, error) {
	st, err := s.SignatureState(ctx, tenantID, sig)
	if err != nil {
		return Claim{}, false, err
	}
	gen := st.Generation
	if contains(st.ClosedKeys, key) && gen > 0 {
		gen--
	}
	return heldBy(ctx, s, tenantID, sig, gen, key)
}

// heldBy is signature sig's row of generation gen if it holds key; ok false when it does
// not, or there is none.
func heldBy(ctx context.Context, s ClaimStore, tenantID, sig string, gen int, key string) (Claim, bool, error) {
	row, err := s.Get(ctx, tenantID, SignatureRowID(tenantID, sig, gen))
	if errors.Is(err, ErrNotFound) || err == nil && !contains(row.Retry.ErrorKeys, key) {
		return Claim{}, false, nil
	}
	return row, err == nil, err
}

// genHints remembers, per store, tenant and signature, the generation a post last folded
// into, so the next post of a recurring signature folds without reading its state. A hint
// is never behind a closed row (generations only grow); a stale one finds its row closed
// and takes the slow path, and one whose row was erased since makes that row again.
// Bounded: emptied when full.
var genHints = &hintCache{m: map[hintKey]int{}}

const maxGenHints = 10000

type hintKey struct {
	store       ClaimStore
	tenant, sig string
}

type hintCache struct {
	mu sync.Mutex
	m  map[hintKey]int
}

// get is the hint, 0 for a signature not seen (right until its row is found closed).
func (h *hintCache) get(s ClaimStore, tenantID, sig string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m[hintKey{s, tenantID, sig}]
}

func (h *hintCache) set(s ClaimStore, tenantID, sig string, gen int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.m) >= maxGenHints {
		clear(h.m)
	}
	h.m[hintKey{s, tenantID, sig}] = gen
}

func contains(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// Occurred is row after the occurrence c counted on it.
func Occurred(row, c Claim, errorKey string, keep bool) Claim {
	row.Retry.Occurrences++
	row.Retry.LastSeen = c.ClaimedAt
	if keep {
		row.Retry.ErrorKeys = append(row.Retry.ErrorKeys, errorKey)
	}
	return row
}
