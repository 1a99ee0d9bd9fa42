package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// StartRuns implements Store. Every event has a key of its own, run#EventRunID, derived
// from the event alone, so a redelivery meets its first delivery there whichever flows
// match it now (keyed by its flow, a lone run was missed by a redelivery that matched
// another flow, and the event ran twice).
//
// An event of one run (the common case) stores its run at that key: the run's conditional
// put is the event's dedupe and nothing is read first (issue 37: a call less per event).
// An event of no run or of several stores there a marker of its run ids, with no index
// attribute, so neither the runs listing nor the due index sees it. An event of several
// reads its key first; not stored, each run is put under its flow's id (RunID), then the
// marker: an event on record always has its runs. A delivery that failed part way (or
// died), or that is still putting its runs, has left some runs and no marker, so another
// delivery meeting them is not a duplicate: it puts the runs missing, reports those on
// record (Started.OnRecord: their delivery attempts nothing) and puts the marker, which
// one delivery only stores. A redelivery is answered with the first delivery's runs: the
// run at the key, or the marker's ids. Known, not mended (a read on every event of one run
// would): if the tenant's flows change between a delivery that failed part way and its
// redelivery, a run the failed one stored that the redelivery no longer matches is left to
// the redrive outside the marker, and one the redelivery now matches alone is stored again
// at the event's key, so that flow may write twice (the connector's read-compare-write
// writes no field the target already holds).
//
// Events first delivered before this key existed kept a lone run at its flow's id and the
// record of no run or several at event#<system>#<eventId>. Those runs keep their ids and
// keys: Run, the listings, the redrive and SaveRun serve them as before. A redelivery of
// such an event after the deploy does not meet them and starts its runs again (and so
// does a sync error's re-run asked again under the same attempt across the deploy).
// Nothing is read to find them, as that would cost every event the read saved here: the
// second run's write goes through the connector's read-compare-write, which writes no
// field the target already holds, and the old items age out with Retention.
func (s *DynamoStore) StartRuns(ctx context.Context, tenantID string, system connector.System, eventID string, runs []Run) (Started, error) {
	own := EventRunID(tenantID, system, eventID)
	if err := checkRunIDs(own, runs); err != nil {
		return Started{}, err
	}
	// A put that the SDK sent again after its first was applied is not refused
	// (dynamostore.PutOnce): the event is not answered as a duplicate of itself with its run
	// left for the redrive.
	if len(runs) == 1 {
		it, err := runItem(runs[0])
		if err != nil {
			return Started{}, err
		}
		by, err := s.putAtKey(ctx, tenantID, own, it)
		switch {
		case err != nil:
			return Started{}, fmt.Errorf("store run %s: %w", own, err)
		case by != nil:
			return refusedBy(own, by)
		}
		return Started{IDs: []string{own}, New: true}, nil
	}
	if len(runs) > 1 {
		switch first, err := s.eventRuns(ctx, tenantID, own); {
		case err == nil:
			return Started{IDs: first}, nil
		case !errors.Is(err, ErrNotFound):
			return Started{}, fmt.Errorf("read event %s: %w", own, err)
		}
	}
	st := Started{IDs: make([]string, len(runs)), New: true}
	for i, r := range runs {
		st.IDs[i] = r.ID
		it, err := runItem(r)
		if err != nil {
			return Started{}, err
		}
		refused, err := dynamostore.PutOnce(ctx, s.client, s.table, s.key(tenantID, prefixRun+r.ID), it, "attribute_not_exists(sk)", nil)
		if err != nil {
			return Started{}, fmt.Errorf("store run %s: %w", r.ID, err)
		}
		if refused {
			st.OnRecord = append(st.OnRecord, r.ID)
		}
	}
	doc, _ := json.Marshal(st.IDs)
	marker := s.key(tenantID, prefixRun+own)
	marker["run_ids"] = dynamostore.Str(string(doc))
	marker["event"] = dynamostore.Str(string(system) + "#" + eventID) // for a person reading the table
	marker["expires_at"] = dynamostore.Num(time.Now().Add(Retention).Unix())
	by, err := s.putAtKey(ctx, tenantID, own, marker)
	switch {
	case err != nil:
		return Started{}, fmt.Errorf("store event: %w", err)
	case by != nil:
		// A concurrent delivery stored the event first; its runs are the answer.
		return refusedBy(own, by)
	}
	return st, nil
}

// putAtKey puts it at the event's key own unless something is there; refused, it returns
// what is there (the read that tells the refusal from the SDK's resend of this put also
// reads the marker's run ids, so a redelivery costs a put and a read).
func (s *DynamoStore) putAtKey(ctx context.Context, tenantID, own string, it dynamostore.Item) (dynamostore.Item, error) {
	return dynamostore.PutOnceOr(ctx, s.client, s.table, s.key(tenantID, prefixRun+own), it, "attribute_not_exists(sk)", nil, "sk", "run_ids")
}

// checkRunIDs refuses runs that would miss the event's key: a lone run not at it, or one
// of several on it (over the marker).
func checkRunIDs(own string, runs []Run) error {
	for _, r := range runs {
		if (len(runs) == 1) != (r.ID == own) {
			return fmt.Errorf("flow: run %s of an event of %d runs: a lone run has the event's id %s (SoleRun), each of several its flow's (RunID)", r.ID, len(runs), own)
		}
	}
	return nil
}

// eventRuns reads the run ids the event of key own started; ErrNotFound for an event not
// seen.
func (s *DynamoStore) eventRuns(ctx context.Context, tenantID, own string) ([]string, error) {
	it, err := s.get(ctx, tenantID, prefixRun+own)
	if err != nil {
		return nil, err
	}
	return startedAt(own, it)
}

// refusedBy answers a delivery whose put at the event's key own was refused by it, the
// first delivery's item. Gone again (its retention ended in between), it is an error the
// sender's retry resolves, not an event never seen.
func refusedBy(own string, it dynamostore.Item) (Started, error) {
	if len(it) == 0 {
		return Started{}, fmt.Errorf("event %s: its key refused the put and then held nothing", own)
	}
	first, err := startedAt(own, it)
	return Started{IDs: first}, err
}

// startedAt is the run ids that the item at an event's key own answers: its marker's, or
// the lone run it is.
func startedAt(own string, it dynamostore.Item) ([]string, error) {
	if !isMarker(it) {
		return []string{own}, nil
	}
	ids := []string{}
	if err := json.Unmarshal([]byte(dynamostore.GetString(it, "run_ids")), &ids); err != nil {
		return nil, fmt.Errorf("event %s: %w", own, err)
	}
	return ids, nil
}

// isMarker tells an event's marker from a run at the runs' keys.
func isMarker(it dynamostore.Item) bool {
	_, ok := it["run_ids"]
	return ok
}
