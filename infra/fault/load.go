package fault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/infra/bench/loadgen"
	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/aidiagnoser"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Post is one signed delivery of a sync error, as the host ERP makes it.
type Post struct {
	ErrorID string
	MsgID   string
	Body    []byte
}

// dupEvery makes every tenth post a duplicate (10 %): the host re-sending a sync error
// a few posts after the first, so that with 32 senders the two race.
const dupEvery = 10

// makePosts returns n posts of which every dupEvery-th repeats the errorId of the post five
// before it (with a new webhook id), and every 20th unique one carries the DLP canaries.
func makePosts(prefix string, n int) (posts []Post, unique []string) {
	for i := 0; i < n; i++ {
		p := Post{MsgID: webhook.NewMessageID()}
		if i%dupEvery == dupEvery-1 && i >= 5 {
			p.ErrorID, p.Body = posts[i-5].ErrorID, posts[i-5].Body
		} else {
			p.ErrorID = fmt.Sprintf("%s-%05d", prefix, i)
			p.Body = syncErrorBody(p.ErrorID, i, len(unique)%20 == 0)
			unique = append(unique, p.ErrorID)
		}
		posts = append(posts, p)
	}
	return posts, unique
}

// faultMessage is every fault sync error's message; each errorId is about its own record,
// so each is a sync error of its own (not an occurrence of another's).
const faultMessage = "Invalid value for field shipcountry: Deutschland is not a valid ISO 3166 country code"

func faultRecordID(errorID string) string { return "SO-" + errorID }

// rowIDOf is the row syncErrorBody(errorID, …) opens.
func rowIDOf(errorID string) string {
	if id, ok := rowIDs.Load(errorID); ok {
		return id.(string)
	}
	id := syncerror.RowID(syncerror.Record{TenantID: tenantID, RecordType: "salesOrder", RecordID: faultRecordID(errorID),
		ErrorCode: "INVALID_FIELD_VALUE", Message: faultMessage})
	rowIDs.Store(errorID, id)
	return id
}

// rowIDs keeps rowIDOf's answers: RowID normalises the message with regular expressions,
// and settle asks again for every pending id each poll (under -race 2 % of the suite's CPU).
var rowIDs sync.Map

// syncErrorBody is a sync error the rules diagnoser knows how to fix (a country name where
// the ERP wants an ISO code); with canaries its payload carries a card number, an AWS
// secret key, an SSN, an e-mail and a JWT, none of which may reach a log or an answer.
func syncErrorBody(errorID string, i int, canaries bool) []byte {
	payload := map[string]any{"shipcountry": "Deutschland", "shipzip": "10115", "total": 129.5}
	if canaries {
		for _, c := range aitest.Canaries {
			if c.Type != "PRIVATE_KEY" {
				payload["note_"+c.Type] = c.Value
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"tenantId": tenantID, "errorId": errorID, "recordType": "salesOrder",
		"recordId": faultRecordID(errorID), "errorCode": "INVALID_FIELD_VALUE", "message": faultMessage,
		"occurredAt": time.Now().UTC().Add(-time.Minute).Format(time.RFC3339), "payload": payload})
	return b
}

// Delivery is what became of one post after the sender's retries.
type Delivery struct {
	// Status is the last answer (0: none, the connection failed every time).
	Status    int
	Duplicate bool
	Attempts  int
}

// Burst is what a burst of posts did.
type Burst struct {
	Run        loadgen.Result
	Requests   []time.Duration // every HTTP request's latency, retries included
	Deliveries []Delivery
	Retried    int64 // 5xx answers and failed connections the sender retried
	Leaked     int64 // canary occurrences in answers
}

// sendTimeout is how long a sender keeps retrying one post (the host ERP's outbox would
// keep it for much longer).
const sendTimeout = 90 * time.Second

// burst posts every post on conc senders. A 5xx or a failed connection is retried with
// the same webhook id, re-signed, after an exponential backoff, as a Standard Webhooks
// sender does; any other answer is final. onPosted runs after each post's final answer.
func (st *Stage) burst(ctx context.Context, posts []Post, conc int, onPosted func(done int)) *Burst {
	b := &Burst{Deliveries: make([]Delivery, len(posts))}
	var mu sync.Mutex
	var done int64
	url := st.URL + blueprint.IngestRoute.Path
	canaries := st.canaries()
	b.Run = loadgen.Measure("burst", len(posts), conc, func(i int) error {
		d, lat, err := st.deliver(ctx, url, posts[i], canaries, &b.Leaked)
		mu.Lock()
		b.Requests = append(b.Requests, lat...)
		mu.Unlock()
		b.Deliveries[i] = d
		atomic.AddInt64(&b.Retried, int64(d.Attempts-1))
		if onPosted != nil {
			onPosted(int(atomic.AddInt64(&done, 1)))
		}
		return err
	})
	return b
}

// deliver posts p until it is answered with something other than a 5xx.
func (st *Stage) deliver(ctx context.Context, url string, p Post, canaries []string, leaked *int64) (Delivery, []time.Duration, error) {
	var d Delivery
	var lat []time.Duration
	deadline := time.Now().Add(sendTimeout)
	wait := 50 * time.Millisecond
	for {
		d.Attempts++
		t0 := time.Now()
		ans, err := loadgen.PostSigned(ctx, st.Client, url, tenantID, st.Key, p.MsgID, p.Body)
		lat = append(lat, time.Since(t0))
		if err == nil {
			d.Status = ans.Status
			atomic.AddInt64(leaked, int64(countLeaks(string(ans.Body), canaries)))
			if ans.Status < 500 {
				var out intake.IngestResponse
				_ = json.Unmarshal(ans.Body, &out)
				d.Duplicate = out.Duplicate
				if ans.Status != http.StatusAccepted {
					return d, lat, fmt.Errorf("%s: status %d: %s", p.ErrorID, ans.Status, ans.Body)
				}
				return d, lat, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return d, lat, fmt.Errorf("%s: gave up after %d attempts (last status %d, error %v)", p.ErrorID, d.Attempts, d.Status, err)
		}
		time.Sleep(wait)
		wait = min(2*wait, 2*time.Second)
	}
}

// createdTwice returns the errorIds that two posts were told they created (the conditional
// put let two claims through, as the answers tell it), and how many posts ended without a
// 202.
func createdTwice(posts []Post, b *Burst) (doubled []string, rejected int) {
	created := map[string]int{}
	for i, d := range b.Deliveries {
		switch {
		case d.Status == http.StatusAccepted && !d.Duplicate:
			created[posts[i].ErrorID]++
		case d.Status != http.StatusAccepted:
			rejected++
		}
	}
	for id, n := range created {
		if n > 1 {
			doubled = append(doubled, id)
		}
	}
	return doubled, rejected
}

// storedTwice returns the errorIds whose stored claim row shows a second creation, read from
// the store rather than from the answers: more than one "claimed" entry in its history, or
// a row last written by another delivery than the one post answered as created (a put that
// overwrote the first claim). A row whose creating answer was lost (a 5xx after the write,
// then a retry told duplicate) must carry the webhook id of one of its errorId's posts.
func storedTwice(posts []Post, b *Burst, stored map[string]syncerror.Claim) []string {
	createdBy, sentBy := map[string][]string{}, map[string][]string{}
	for i, p := range posts {
		sentBy[p.ErrorID] = append(sentBy[p.ErrorID], p.MsgID)
		if d := b.Deliveries[i]; d.Status == http.StatusAccepted && !d.Duplicate {
			createdBy[p.ErrorID] = append(createdBy[p.ErrorID], p.MsgID)
		}
	}
	var out []string
	for errorID, c := range stored {
		claimed := 0
		for _, e := range c.History {
			if e.Action == "claimed" {
				claimed++
			}
		}
		by := createdBy[errorID]
		if len(by) == 0 {
			by = sentBy[errorID]
		}
		if claimed != 1 || !contains(by, c.WebhookID) {
			out = append(out, errorID)
		}
	}
	return out
}

// enqueued counts, per claim, the distinct diagnosis messages the pollers were handed (a
// redelivery keeps its message id; a second SendMessage is a new one): a claim created
// twice is enqueued twice. It reads the queue's deliveries, not the ingest's answers.
type enqueued struct {
	mu   sync.Mutex
	msgs map[string]map[string]bool
}

func (e *enqueued) wrap(next sqsqueue.BatchHandler) sqsqueue.BatchHandler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		e.mu.Lock()
		for _, m := range ev.Records {
			if msg, err := syncerror.ParseMessage(m.Body); err == nil {
				if e.msgs[msg.ID] == nil {
					e.msgs[msg.ID] = map[string]bool{}
				}
				e.msgs[msg.ID][m.MessageId] = true
			}
		}
		e.mu.Unlock()
		return next(ctx, ev)
	}
}

// multiple returns the errorIds whose claim was handed more than one distinct message.
func (e *enqueued) multiple(errorIDs []string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, id := range errorIDs {
		if len(e.msgs[rowIDOf(id)]) > 1 {
			out = append(out, id)
		}
	}
	return out
}

// AIRecords are what one claim's diagnoses left: its reasoning traces, and its cost
// records grouped by inference. One diagnosis attempt is one inference with one trace and
// one cost record per provider call, each written once; an attempt whose rules answer was
// below the tenant's threshold adds the model's inference (aidiagnoser.ModelInference), its
// own trace and costs, and is still one attempt.
type AIRecords struct {
	Traces, Inferences, Costs int
	// Attempts are the distinct diagnosis attempts the traces and costs name.
	Attempts int
	// Repeated counts cost records written twice for the same inference and call.
	Repeated int
}

// Doubled says the claim was diagnosed (or billed) more than once.
func (a AIRecords) Doubled() bool { return a.Attempts > 1 || a.Repeated > 0 }

// tally counts what one claim's traces and cost records say.
func tally(traces []ai.Trace, costs []ai.CostRecord) AIRecords {
	attempts, inf, calls := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var out AIRecords
	for _, t := range traces {
		attempts[strings.TrimSuffix(t.InferenceID, aidiagnoser.ModelInference)] = true
	}
	for _, r := range costs {
		attempts[strings.TrimSuffix(r.InferenceID, aidiagnoser.ModelInference)] = true
		inf[r.InferenceID] = true
		if calls[r.InferenceID+"/"+r.Operation] {
			out.Repeated++
		}
		calls[r.InferenceID+"/"+r.Operation] = true
	}
	out.Traces, out.Inferences, out.Costs, out.Attempts = len(traces), len(inf), len(costs), len(attempts)
	return out
}

// aiRecords reads the AI records of each errorId's claim.
func (st *Stage) aiRecords(ctx context.Context, errorIDs []string) ([]AIRecords, error) {
	out := make([]AIRecords, len(errorIDs))
	err := parallel(len(errorIDs), 8, func(i int) error {
		id := rowIDOf(errorIDs[i])
		t, err := st.View.AIRecords.Traces(ctx, tenantID, id)
		if err != nil {
			return err
		}
		c, err := st.View.AIRecords.Costs(ctx, tenantID, id)
		if err != nil {
			return err
		}
		out[i] = tally(t, c)
		return nil
	})
	return out, err
}

// parallel runs fn(i) for i in [0,n) on conc goroutines and returns the errors joined.
func parallel(n, conc int, fn func(i int) error) error {
	var mu sync.Mutex
	var errs []error
	next := int64(-1)
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(atomic.AddInt64(&next, 1)); i < n; i = int(atomic.AddInt64(&next, 1)) {
				if err := fn(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
