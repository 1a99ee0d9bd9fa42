package flowtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/flow"
)

// Store is an in-memory flow.Store that keeps an event's runs as the DynamoDB store does
// (StoreContract): a lone run at the event's key (flow.EventRunID), its conditional put
// the event's dedupe; an event of no run or of several as a marker at that key. Runs and
// flows are kept as copies, as a table keeps documents. It is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	flows map[itemKey]flow.Flow
	// items are what the runs' keys hold: runs, and events' markers.
	items  map[itemKey]item
	marks  map[itemKey]flow.Watermark
	reads  int
	tokens int
}

var _ flow.Store = (*Store)(nil)

type itemKey struct{ tenant, id string }

// item is a run, or an event's marker of its run ids (marker non-nil), with the write
// token of the conditional put that stored it.
type item struct {
	run    flow.Run
	marker []string
	token  string
}

// Reads is how many reads the store made, as a table would count them: a StartRuns that
// reads nothing is one whose conditional put alone answered.
func (s *Store) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// SentTwice is the same store with every conditional put of StartRuns applied twice, the
// second answering: what the SDK does when the first answer was lost after the table
// applied it (emutest's SentTwice on the emulators).
func (s *Store) SentTwice() flow.Store { return resent{s} }

type resent struct{ *Store }

func (r resent) StartRuns(_ context.Context, tenantID string, system connector.System, eventID string, runs []flow.Run) (flow.Started, error) {
	return r.start(tenantID, system, eventID, runs, 2, "")
}

// FailingPut is the same store with StartRuns' put of run id (or of the event's marker,
// at its flow.EventRunID) failing, as a delivery that fails part way does.
func (s *Store) FailingPut(id string) flow.Store { return failing{s, id} }

type failing struct {
	*Store
	id string
}

func (f failing) StartRuns(_ context.Context, tenantID string, system connector.System, eventID string, runs []flow.Run) (flow.Started, error) {
	return f.start(tenantID, system, eventID, runs, 1, f.id)
}

// Flows implements flow.Store, sorted by id as the table's sort key is.
func (s *Store) Flows(_ context.Context, tenantID string) ([]flow.Flow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	var out []flow.Flow
	for k, f := range s.flows {
		if k.tenant == tenantID {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b flow.Flow) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), flow.MaxFlows)], nil
}

// Flow implements flow.Store.
func (s *Store) Flow(_ context.Context, tenantID, id string) (flow.Flow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	f, ok := s.flows[itemKey{tenantID, id}]
	if !ok {
		return flow.Flow{}, flow.ErrNotFound
	}
	return f, nil
}

// PutFlow implements flow.Store.
func (s *Store) PutFlow(_ context.Context, tenantID string, f flow.Flow) error {
	c, err := roundTrip(f)
	if err != nil {
		return err
	}
	// As the table's decoding does for flows stored before triggers existed.
	c.Trigger = c.TriggerOrDefault()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flows == nil {
		s.flows = map[itemKey]flow.Flow{}
	}
	s.flows[itemKey{tenantID, f.ID}] = c
	return nil
}

// DeleteFlow implements flow.Store.
func (s *Store) DeleteFlow(_ context.Context, tenantID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.flows[itemKey{tenantID, id}]; !ok {
		return flow.ErrNotFound
	}
	delete(s.flows, itemKey{tenantID, id})
	return nil
}

// StartRuns implements flow.Store as the DynamoDB store does, one put at a time.
func (s *Store) StartRuns(_ context.Context, tenantID string, system connector.System, eventID string, runs []flow.Run) (flow.Started, error) {
	return s.start(tenantID, system, eventID, runs, 1, "")
}

// errPutFailed is FailingPut's failure: StartRuns stops there, as at a table's error.
var errPutFailed = errors.New("flowtest: the put failed")

func (s *Store) start(tenantID string, system connector.System, eventID string, runs []flow.Run, sends int, fail string) (flow.Started, error) {
	own := flow.EventRunID(tenantID, system, eventID)
	for _, r := range runs {
		if (len(runs) == 1) != (r.ID == own) {
			return flow.Started{}, fmt.Errorf("flowtest: run %s of an event of %d runs is not keyed as StartRuns wants (flow.SoleRun)", r.ID, len(runs))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := itemKey{tenantID, own}
	if len(runs) == 1 {
		it, err := runOf(runs[0])
		if err != nil {
			return flow.Started{}, err
		}
		if !s.putOnce(key, it, sends) {
			return flow.Started{IDs: []string{own}, New: true}, nil
		}
		return flow.Started{IDs: s.answer(key)}, nil
	}
	if len(runs) > 1 {
		s.reads++
		if it, ok := s.items[key]; ok {
			return flow.Started{IDs: answerOf(key, it)}, nil
		}
	}
	st := flow.Started{IDs: []string{}, New: true}
	for _, r := range runs {
		it, err := runOf(r)
		if err != nil {
			return flow.Started{}, err
		}
		if r.ID == fail {
			return flow.Started{}, errPutFailed
		}
		if s.putOnce(itemKey{tenantID, r.ID}, it, sends) {
			st.OnRecord = append(st.OnRecord, r.ID)
		}
		st.IDs = append(st.IDs, r.ID)
	}
	if own == fail {
		return flow.Started{}, errPutFailed
	}
	if s.putOnce(key, item{marker: st.IDs}, sends) {
		return flow.Started{IDs: s.answer(key)}, nil
	}
	return st, nil
}

// putOnce stores it at k unless something is there, sent sends times, and reports whether
// the last send was refused by another put's item (one carrying another token).
func (s *Store) putOnce(k itemKey, it item, sends int) (refused bool) {
	if s.items == nil {
		s.items = map[itemKey]item{}
	}
	s.tokens++
	it.token = strconv.Itoa(s.tokens)
	for range sends {
		have, ok := s.items[k]
		if !ok {
			s.items[k] = it
		}
		refused = ok && have.token != it.token
	}
	return refused
}

// answer reads the item at an event's key for the run ids it answers a redelivery with.
func (s *Store) answer(key itemKey) []string {
	s.reads++
	return answerOf(key, s.items[key])
}

func answerOf(key itemKey, it item) []string {
	if it.marker != nil {
		return slices.Clone(it.marker)
	}
	return []string{key.id}
}

// SaveRun implements flow.Store.
func (s *Store) SaveRun(_ context.Context, r flow.Run, attempts int) error {
	it, err := runOf(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := itemKey{r.TenantID, r.ID}
	have, ok := s.items[k]
	if !ok || have.marker != nil || have.run.Attempts != attempts || !watched(have.run) {
		return flow.ErrTaken
	}
	s.items[k] = it
	return nil
}

// Run implements flow.Store; an event's marker is no run.
func (s *Store) Run(_ context.Context, tenantID, id string) (flow.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	it, ok := s.items[itemKey{tenantID, id}]
	if !ok || it.marker != nil {
		return flow.Run{}, flow.ErrNotFound
	}
	return copyRun(it.run)
}

// runs is the tenant's runs, markers left out as the indexes leave them.
func (s *Store) runs(tenantID string) []flow.Run {
	var out []flow.Run
	for k, it := range s.items {
		if k.tenant == tenantID && it.marker == nil {
			out = append(out, it.run)
		}
	}
	return out
}

func runSort(r flow.Run) string { return dynamostore.FormatTime(r.CreatedAt) + "#" + r.ID }

// Runs implements flow.Store, newest first, with the DynamoDB store's cursors.
func (s *Store) Runs(_ context.Context, tenantID string, q flow.RunQuery) ([]flow.Run, string, error) {
	after := ""
	if q.Cursor != "" {
		sortKey, id, ok := dynamostore.DecodeTimedCursor(q.Cursor, "")
		if !ok || !flow.ValidRunID(id) {
			return nil, "", flow.ErrBadCursor
		}
		after = sortKey
	}
	s.mu.Lock()
	all := s.runs(tenantID)
	s.reads++
	s.mu.Unlock()
	slices.SortFunc(all, func(a, b flow.Run) int { return cmp.Compare(runSort(b), runSort(a)) })
	var out []flow.Run
	for _, r := range all {
		if after != "" && runSort(r) >= after || q.FlowID != "" && r.FlowID != q.FlowID || q.Outcome != "" && r.Outcome != q.Outcome {
			continue
		}
		c, err := copyRun(r)
		if err != nil {
			return nil, "", err
		}
		if out = append(out, c); q.Limit > 0 && len(out) == q.Limit+1 {
			return out[:q.Limit], dynamostore.EncodeCursor(runSort(out[q.Limit-1])), nil
		}
	}
	return out, "", nil
}

// watched says a run has not ended: retrying, or held with its approval watched.
func watched(r flow.Run) bool {
	return r.Outcome == flow.OutcomeRetrying || r.Outcome == flow.OutcomeHeld
}

// DueRuns implements flow.Store: up to limit retrying runs, then up to limit held ones,
// each oldest due first.
func (s *Store) DueRuns(_ context.Context, tenantID string, now time.Time, limit int) ([]flow.Run, error) {
	s.mu.Lock()
	all := s.runs(tenantID)
	s.reads++
	s.mu.Unlock()
	due := func(r flow.Run) string { return dynamostore.FormatTime(*r.NextAttemptAt) }
	all = slices.DeleteFunc(all, func(r flow.Run) bool {
		return !watched(r) || r.NextAttemptAt == nil || due(r) > dynamostore.FormatTime(now)
	})
	slices.SortFunc(all, func(a, b flow.Run) int { return cmp.Or(cmp.Compare(due(a), due(b)), cmp.Compare(a.ID, b.ID)) })
	held := slices.DeleteFunc(slices.Clone(all), func(r flow.Run) bool { return r.Outcome != flow.OutcomeHeld })
	all = slices.DeleteFunc(all, func(r flow.Run) bool { return r.Outcome == flow.OutcomeHeld })
	out := []flow.Run{}
	for _, r := range append(all[:min(len(all), limit)], held[:min(len(held), limit)]...) {
		c, err := copyRun(r)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func pollKey(tenantID string, src flow.Endpoint) itemKey { return itemKey{tenantID, src.String()} }

// Watermark implements flow.Store.
func (s *Store) Watermark(_ context.Context, tenantID string, src flow.Endpoint) (flow.Watermark, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	w, ok := s.marks[pollKey(tenantID, src)]
	if !ok {
		return flow.Watermark{}, flow.ErrNotFound
	}
	return w, nil
}

// SaveWatermark implements flow.Store, conditional on the stored watermark's PolledAt.
func (s *Store) SaveWatermark(_ context.Context, tenantID string, w flow.Watermark, prev *time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := pollKey(tenantID, w.Source)
	have, ok := s.marks[k]
	if ok != (prev != nil) || ok && dynamostore.FormatTime(have.PolledAt) != dynamostore.FormatTime(*prev) {
		return flow.ErrTaken
	}
	if s.marks == nil {
		s.marks = map[itemKey]flow.Watermark{}
	}
	s.marks[k] = w
	return nil
}

// runOf is r as the store keeps it: a copy, its unexported state dropped as a table's
// document drops it.
func runOf(r flow.Run) (item, error) {
	c, err := copyRun(r)
	return item{run: c}, err
}

func copyRun(r flow.Run) (flow.Run, error) {
	c, err := roundTrip(r)
	if err != nil {
		return flow.Run{}, err
	}
	c.TenantID, c.System = r.TenantID, r.System
	if r.Pending != nil {
		p, err := roundTrip(*r.Pending)
		if err != nil {
			return flow.Run{}, err
		}
		c.Pending = &p
	}
	return c, nil
}

// roundTrip copies v through JSON as the table's document does, numbers as json.Number:
// a run's pending fields keep every digit the source sent (DynamoStore's decodeRun).
func roundTrip[T any](v T) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return out, dec.Decode(&out)
}
