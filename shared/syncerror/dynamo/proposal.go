package dynamo

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/deflate"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/jsonvalue"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A row's proposal is two attributes (issue 37 §1). "proposal" holds what the readers of
// the by_status index read of it: the class (first, so the class filter is a prefix test,
// list.go), the fix (groups, bulk previews and the approval rule's fields and amounts), the
// confidence, the source and the learned approvals (the approval rule). "proposal_more"
// holds the rest, which only a row's detail and the workers read: the summary, the
// rationale, the inference's ids and time, the full provenance. by_status projects the
// first alone, so a diagnosed row's entry stays under 1 KB and every write that rewrites
// the entry costs one unit less. A row written before the split holds the whole proposal
// in "proposal" and no "proposal_more": it reads the same; one written before the rest was
// deflated holds it as JSON text, and reads the same too.

// listedProposal is the part of a Proposal the listing's readers read, in the JSON names
// of Proposal, so it decodes into one.
type listedProposal struct {
	Class      string                  `json:"class"`
	Fix        []syncerror.FieldChange `json:"fix"`
	Confidence float64                 `json:"confidence"`
	Source     string                  `json:"source,omitempty"`
	Learned    *learnedCount           `json:"learned,omitempty"`
}

type learnedCount struct {
	Approvals int `json:"approvals"`
}

// moreProposal is the rest of a Proposal, in its JSON names.
type moreProposal struct {
	Retryable   bool                  `json:"retryable"`
	Summary     string                `json:"summary"`
	Rationale   string                `json:"rationale"`
	InferenceID string                `json:"inferenceId"`
	Provider    string                `json:"provider"`
	Model       string                `json:"model"`
	DiagnosedAt time.Time             `json:"diagnosedAt"`
	Learned     *syncerror.Provenance `json:"learned,omitempty"`
	Automation  string                `json:"automation,omitempty"`
}

// proposalAttrs are p's two attributes: the listed part and the rest.
func proposalAttrs(p syncerror.Proposal) (listed, more types.AttributeValue) {
	l := listedProposal{Class: p.Class, Fix: p.Fix, Confidence: p.Confidence, Source: p.Source}
	if p.Learned != nil {
		l.Learned = &learnedCount{Approvals: p.Learned.Approvals}
	}
	m := moreProposal{Retryable: p.Retryable, Summary: p.Summary, Rationale: p.Rationale, InferenceID: p.InferenceID,
		Provider: p.Provider, Model: p.Model, DiagnosedAt: p.DiagnosedAt, Learned: p.Learned, Automation: p.Automation}
	lb, _ := json.Marshal(l) // both decoded from JSON or built of JSON values: they marshal
	mb, _ := json.Marshal(m)
	// The rest is written once and read by a row's detail and the workers only, but it is
	// in every later write of the row: deflated (binary), the summary and the rationale
	// that repeats it take a fifth less, which keeps an applying row under 2 KB (issue 37 §1).
	return dynamostore.Str(string(lb)), &types.AttributeValueMemberB{Value: deflate.Compress(mb)}
}

// proposalFrom reads a row's proposal: the listed part, then the rest over it when the
// item carries it (a row read whole; an index entry carries the listed part alone). nil
// when the row has none.
func proposalFrom(it dynamostore.Item) (*syncerror.Proposal, error) {
	listed := dynamostore.GetString(it, "proposal")
	if listed == "" {
		return nil, nil
	}
	p := &syncerror.Proposal{}
	// With their digits (UnmarshalNumbers): the fix read here is what an approve writes.
	if err := jsonvalue.Unmarshal([]byte(listed), p); err != nil {
		return nil, fmt.Errorf("proposal: %w", err)
	}
	more := dynamostore.GetString(it, "proposal_more") // JSON text: a row written before
	if z, ok := it["proposal_more"].(*types.AttributeValueMemberB); ok {
		b, err := deflate.Inflate(z.Value)
		if err != nil {
			return nil, fmt.Errorf("proposal_more: %w", err)
		}
		more = string(b)
	}
	if more != "" {
		// Provenance is replaced whole, not merged into the listed count.
		p.Learned = nil
		if err := jsonvalue.Unmarshal([]byte(more), p); err != nil {
			return nil, fmt.Errorf("proposal_more: %w", err)
		}
	}
	return p, nil
}
