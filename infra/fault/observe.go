package fault

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
)

// Observer is what a scenario's checks read the stage's rows and AI records through:
// dynalite itself, on the harness's own client, never the stage's. A fault may sit between
// the service and its database (partition-throttle's proxy); the checks must see what the
// service stored without meeting that fault: a check's read through the throttle draws on
// the hot tenant's units (slowing the very service it watches) and, refused three times,
// fails the scenario for a reason that is not the service's.
type Observer struct {
	Claims    *dynamo.DynamoClaims
	AIRecords aiclient.Records
}

// newObserver reads the stage's tables on the harness's client, whose endpoint is
// dynalite's own (its config was loaded before any scenario pointed the stage elsewhere).
func (st *Stage) newObserver() Observer {
	db := dynamodb.NewFromConfig(st.h.AWS)
	return Observer{
		Claims:    dynamo.NewDynamoClaims(db, st.Deps.Config.Table(blueprint.Processed)),
		AIRecords: aiclient.Records{Store: audit.NewAIRecords(db, st.Deps.Config.Table(blueprint.AIRecords))},
	}
}

// drainTimeout bounds the wait for the diagnosis queue to empty once the claims settled.
const drainTimeout = time.Minute

// drained waits until the diagnosis queue holds no message, visible or in flight: every
// copy the pollers had yet to see (a reconcile's requeue, a redelivery of a message whose
// claim another delivery diagnosed) has been handled, so the DLQ is final. It returns the
// depth it last saw (0 when drained).
func (st *Stage) drained(ctx context.Context) (int, error) {
	deadline := time.Now().Add(drainTimeout)
	for {
		n, err := st.QueueDepth(ctx, blueprint.Diagnosis.Name)
		if err != nil || n == 0 || time.Now().After(deadline) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// deadLettered reads the DLQ's messages (without deleting them: they come back after
// their visibility timeout, as they would for a person reading the DLQ) and returns the
// claims they are about, by tenant and row id; a body that is no diagnosis message is
// returned as an error.
func (st *Stage) deadLettered(ctx context.Context) ([]syncerror.Message, error) {
	client := sqs.NewFromConfig(st.h.AWS)
	url := st.Prov.Queues[blueprint.DiagnosisDLQ.Name].URL
	seen := map[string]bool{}
	var out []syncerror.Message
	for {
		res, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10,
			VisibilityTimeout: 60})
		if err != nil {
			return out, err
		}
		if len(res.Messages) == 0 {
			return out, nil
		}
		for _, m := range res.Messages {
			if seen[aws.ToString(m.MessageId)] {
				continue
			}
			seen[aws.ToString(m.MessageId)] = true
			msg, err := syncerror.ParseMessage(aws.ToString(m.Body))
			if err != nil {
				return out, fmt.Errorf("DLQ message %s: %w: %s", aws.ToString(m.MessageId), err, aws.ToString(m.Body))
			}
			out = append(out, msg)
		}
	}
}

// trail is what CI's log needs to tell why a claim was flagged: each of its inferences
// (id, start, how long it ran, the error it ended with) and the worker's warnings and
// errors about it since logStart.
func (st *Stage) trail(ctx context.Context, tenant, rowID string, logStart int) string {
	var parts []string
	traces, err := st.View.AIRecords.Traces(ctx, tenant, rowID)
	if err != nil {
		parts = append(parts, "traces unreadable: "+err.Error())
	}
	for _, t := range traces {
		s := fmt.Sprintf("inference %s started %s ran %s", t.InferenceID, t.StartedAt.Format("15:04:05.000"), t.Duration.Round(time.Millisecond))
		if t.Error != "" {
			s += " error " + t.Error
		}
		parts = append(parts, s)
	}
	lines := 0
	for _, l := range strings.Split(st.h.Logs.From(logStart), "\n") {
		if !strings.Contains(l, rowID) || !(strings.Contains(l, `"level":"WARN"`) || strings.Contains(l, `"level":"ERROR"`)) {
			continue
		}
		if lines++; lines > 4 {
			break
		}
		parts = append(parts, "log "+truncate(l, 400))
	}
	return strings.Join(parts, " | ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkDLQ reads the DLQ once the diagnosis queue has drained and judges it (judgeDLQ); the
// count goes to the note.
func (st *Stage) checkDLQ(ctx context.Context, row *Row, why string, unique []string) {
	msgs, err := st.deadLettered(ctx)
	if err != nil {
		row.failf("DLQ: %v", err)
		return
	}
	if len(msgs) == 0 {
		return
	}
	ours := map[string]bool{}
	for _, id := range unique {
		ours[rowIDOf(id)] = true
	}
	judgeDLQ(row, msgs, why, ours, func(m syncerror.Message) (syncerror.Diagnosis, string) {
		c, err := st.View.Claims.Get(ctx, m.TenantID, m.ID)
		return c.Diagnosis, fmt.Sprintf("%v [%s]", err, st.trail(ctx, m.TenantID, m.ID, 0))
	})
	if why != "" {
		row.Note += fmt.Sprintf(" %d diagnosis messages were dead-lettered (%s).", len(msgs), why)
	}
}

// judgeDLQ: without a fault that may dead-letter (why empty), the DLQ must be empty. With
// one, a diagnosis message of the hot tenant may have run out of its receives under the
// fault, and nothing is lost by it as long as its claim ended diagnosed by another
// delivery or the reconcile's requeue: each message must be about one of ours (the
// burst's claims, never another tenant's) and that claim must be ready, else it is lost.
// state reads a claim's diagnosis and what CI's log should say about it.
func judgeDLQ(row *Row, msgs []syncerror.Message, why string, ours map[string]bool,
	state func(syncerror.Message) (syncerror.Diagnosis, string)) {
	if why == "" {
		m := msgs[0]
		d, about := state(m)
		row.failf("%d messages in the DLQ (first: %s/%s, its claim %s, %s)", len(msgs), m.TenantID, m.ID, d, about)
		return
	}
	for _, m := range msgs {
		if m.TenantID != tenantID || !ours[m.ID] {
			row.failf("a diagnosis message of %s/%s, no claim of the hot tenant's burst, is in the DLQ", m.TenantID, m.ID)
			continue
		}
		if d, about := state(m); d != syncerror.DiagnosisReady {
			row.Lost++
			row.failf("%s/%s was dead-lettered and its claim is %q: lost (%s)", m.TenantID, m.ID, d, about)
		}
	}
}
