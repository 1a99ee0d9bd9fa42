package toolcatalog

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// statusPageSize and maxScannedPerStatus bound what one integration_status call reads:
// counts cover at most 1,000 rows per status (the answer says when it stopped short), so
// a tenant with a huge backlog cannot make one tool call read its whole table.
const (
	statusPageSize      = 100
	maxScannedPerStatus = 1000
)

// StatusItem is one processed row in integration_status's answer. It carries ids, codes
// and the diagnosis, never the error message or the payload.
type StatusItem struct {
	ID             string  `json:"id"`
	ErrorID        string  `json:"errorId"`
	RecordType     string  `json:"recordType"`
	RecordID       string  `json:"recordId"`
	ErrorCode      string  `json:"errorCode"`
	ExternalSystem string  `json:"externalSystem,omitempty"`
	Integration    string  `json:"integration,omitempty"`
	Status         string  `json:"status"`
	Diagnosis      string  `json:"diagnosis"`
	Class          string  `json:"class,omitempty"`
	Confidence     float64 `json:"confidence,omitempty"`
	ClaimedAt      string  `json:"claimedAt"`
}

// StatusSummary is integration_status's answer.
type StatusSummary struct {
	TenantID string `json:"tenantId"`
	Filters  struct {
		Status       string `json:"status,omitempty"`
		SourceSystem string `json:"sourceSystem,omitempty"`
		CustomerID   string `json:"customerId,omitempty"`
		Limit        int    `json:"limit"`
	} `json:"filters"`
	Total    int            `json:"total"`
	ByStatus map[string]int `json:"byStatus"`
	// ByDiagnosis counts rows per diagnosis state as the queue's listing shows it: a claim
	// a worker is diagnosing is listed as queued until its diagnosis ends (the worker holds
	// the row, not its index entry: shared/syncerror/dynamo/diagnosis.go), so "diagnosing"
	// counts only rows taken before 2026-11-30; InFlight covers both.
	ByDiagnosis map[string]int `json:"byDiagnosis"`
	// ByClass counts diagnosed rows per error class; rows without a proposal count as
	// "undiagnosed".
	ByClass map[string]int `json:"byClass"`
	Health  StatusHealth   `json:"health"`
	Items   []StatusItem   `json:"items"`
	// Truncated is true when a status had more than 1,000 rows: the counts cover the
	// newest 1,000 of it.
	Truncated   bool   `json:"truncated"`
	GeneratedAt string `json:"generatedAt"`
}

// StatusHealth condenses the counts into what needs a person.
type StatusHealth struct {
	// State is "attention" when a diagnosis or a write-back failed (a person is needed),
	// else "degraded" when deliveries are retrying (a system refuses them for now), else "ok".
	State            string `json:"state"`
	AwaitingDecision int    `json:"awaitingDecision"` // pending with a ready proposal
	DiagnosisFailed  int    `json:"diagnosisFailed"`
	WriteBackFailed  int    `json:"writeBackFailed"` // pending again after a failed write-back
	InFlight         int    `json:"inFlight"`        // queued, diagnosing or applying
	Retrying         int    `json:"retrying"`        // deliveries waiting for their next retry
}

type statusArgs struct {
	Status       string       `json:"status"`
	SourceSystem string       `json:"sourceSystem"`
	CustomerID   string       `json:"customerId"`
	Limit        *json.Number `json:"limit"`
}

// integrationStatus summarises the caller tenant's processed rows. Filters:
//   - status: one of Statuses; default every status (each is listed on its own).
//   - sourceSystem: the row's externalSystem or integration equals it, ignoring case.
//   - customerId: the row's context or payload holds it under a key spelt customerId
//     (any case, with or without '_' or '-') or as "id" of a "customer" object, at most
//     four levels deep, as a string or a number.
//   - limit: how many of the newest matching rows to list, 1..100, default 20.
func (c *Catalog) integrationStatus(call *toolCall, raw json.RawMessage) (any, error) {
	var args statusArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	limit := DefaultStatusLimit
	if args.Limit != nil {
		f, _ := args.Limit.Float64()
		if f != math.Trunc(f) {
			return nil, argumentErrors{{Field: "limit", Message: "must be a whole number from 1 to 100"}}
		}
		limit = int(f)
	}
	if c.Claims == nil {
		return nil, unavailable("integration status", errors.New("no claim reader configured"))
	}
	statuses := Statuses
	if args.Status != "" {
		statuses = []syncerror.Status{syncerror.Status(args.Status)}
	}
	tenant := call.id.TenantID
	out := StatusSummary{
		TenantID: tenant, ByStatus: map[string]int{}, ByClass: map[string]int{}, Items: []StatusItem{},
		ByDiagnosis: map[string]int{
			string(syncerror.DiagnosisQueued): 0, string(syncerror.DiagnosisDiagnosing): 0,
			string(syncerror.DiagnosisReady): 0, string(syncerror.DiagnosisFailed): 0,
		},
		GeneratedAt: c.now().Format(timestampLayout),
	}
	out.Filters.Status, out.Filters.SourceSystem, out.Filters.CustomerID, out.Filters.Limit =
		args.Status, args.SourceSystem, args.CustomerID, limit
	var newest []syncerror.Claim
	for _, st := range statuses {
		out.ByStatus[string(st)] = 0
		kept, cursor, scanned := 0, "", 0
		for {
			page, err := c.Claims.List(call.ctx, tenant, syncerror.ListQuery{Status: st, Limit: statusPageSize, Cursor: cursor})
			if err != nil {
				return nil, unavailable("listing "+string(st)+" rows", err)
			}
			for _, cl := range page.Claims {
				scanned++
				if cl.TenantID != tenant {
					// A store that answered another tenant's row is broken; the row is
					// never shown, whatever the store did.
					httpapi.Logger(call.ctx).Error("claim store returned a foreign row", "status", string(st))
					continue
				}
				if !matchesSource(cl.Record, args.SourceSystem) || !matchesCustomer(cl, args.CustomerID) {
					continue
				}
				out.count(cl)
				// Each listing is newest first, so the newest `limit` rows overall are
				// among the first `limit` matches of each status.
				if kept < limit {
					newest = append(newest, cl)
					kept++
				}
			}
			cursor = page.NextCursor
			if cursor == "" {
				break
			}
			if scanned >= maxScannedPerStatus {
				out.Truncated = true
				break
			}
		}
	}
	slices.SortStableFunc(newest, func(a, b syncerror.Claim) int {
		if d := b.ClaimedAt.Compare(a.ClaimedAt); d != 0 {
			return d
		}
		return strings.Compare(b.ID, a.ID)
	})
	for _, cl := range newest[:min(limit, len(newest))] {
		out.Items = append(out.Items, itemOf(cl))
	}
	switch h := &out.Health; {
	case h.DiagnosisFailed > 0 || h.WriteBackFailed > 0:
		h.State = "attention"
	case h.Retrying > 0:
		h.State = "degraded"
	default:
		h.State = "ok"
	}
	call.details["rows"] = out.Total
	call.details["truncated"] = out.Truncated
	return out, nil
}

func (s *StatusSummary) count(cl syncerror.Claim) {
	s.Total++
	s.ByStatus[string(cl.Status)]++
	s.ByDiagnosis[string(cl.Diagnosis)]++
	class := "undiagnosed"
	if cl.Proposal != nil && cl.Proposal.Class != "" {
		class = cl.Proposal.Class
	}
	s.ByClass[class]++
	switch {
	case cl.Diagnosis == syncerror.DiagnosisFailed:
		s.Health.DiagnosisFailed++
	case cl.Diagnosis == syncerror.DiagnosisQueued || cl.Diagnosis == syncerror.DiagnosisDiagnosing:
		s.Health.InFlight++
	}
	switch {
	case cl.Status == syncerror.StatusApplying:
		s.Health.InFlight++
	case cl.Status == syncerror.StatusRetrying:
		s.Health.Retrying++
	case cl.Status == syncerror.StatusPending && cl.ApplyError != "":
		s.Health.WriteBackFailed++
	case cl.Status == syncerror.StatusPending && cl.Diagnosis == syncerror.DiagnosisReady:
		s.Health.AwaitingDecision++
	}
}

func itemOf(cl syncerror.Claim) StatusItem {
	it := StatusItem{
		ID: cl.ID, ErrorID: cl.Record.ErrorID, RecordType: cl.Record.RecordType, RecordID: cl.Record.RecordID,
		ErrorCode: cl.Record.ErrorCode, ExternalSystem: cl.Record.ExternalSystem, Integration: cl.Record.Integration,
		Status: string(cl.Status), Diagnosis: string(cl.Diagnosis), ClaimedAt: cl.ClaimedAt.UTC().Format(timestampLayout),
	}
	if cl.Proposal != nil {
		it.Class, it.Confidence = cl.Proposal.Class, cl.Proposal.Confidence
	}
	return it
}

func matchesSource(r syncerror.Record, want string) bool {
	want = strings.TrimSpace(want)
	return want == "" || strings.EqualFold(r.ExternalSystem, want) || strings.EqualFold(r.Integration, want)
}

// matchesCustomer reports whether cl's context or payload holds the customer id want
// (syncerror.Record.CustomerIDs), read from what its store kept beside the record: a
// listing may leave the payload and context out (issue 37 §1).
func matchesCustomer(cl syncerror.Claim, want string) bool {
	want = strings.TrimSpace(want)
	return want == "" || slices.Contains(syncerror.CustomersOf(cl), want)
}
