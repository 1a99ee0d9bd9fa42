package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/jsonvalue"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Knowledge is what a tenant's people decided about one case, a fix's field in one kind of
// error with one value before: the value they approved (edited or as proposed) and how
// often, and the values they rejected with why. The diagnosis consults it before the AI.
type Knowledge struct {
	ID         string `json:"id"`
	Version    int    `json:"version"`
	Class      string `json:"class"`
	ErrorCode  string `json:"errorCode"`
	RecordType string `json:"recordType"`
	Field      string `json:"field"`
	Before     any    `json:"before"`
	// Value is the learned value; HasValue is false while people have only rejected.
	Value          any             `json:"value"`
	HasValue       bool            `json:"hasValue"`
	Approvals      int             `json:"approvals"`
	Rejections     int             `json:"rejections"`
	Approvers      []string        `json:"approvers"`
	LastApprovedBy string          `json:"lastApprovedBy,omitempty"`
	LastApprovedAt *time.Time      `json:"lastApprovedAt,omitempty"`
	Rejected       []RejectedValue `json:"rejected"`
	CorrectedBy    string          `json:"correctedBy,omitempty"`
	UpdatedAt      time.Time       `json:"updatedAt"`
}

// RejectedValue is a value people rejected for a case; it is not proposed again for it.
type RejectedValue struct {
	Value  any       `json:"value"`
	Reason string    `json:"reason"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
	Count  int       `json:"count"`
}

// Knowledge bounds.
const (
	maxApprovers      = 50
	maxRejectedValues = 20
	maxKnowledgeScan  = 300
)

// Learning records decisions as knowledge and answers from it.
type Learning struct {
	Docs syncerror.DocStore
}

var learnScanner = dlp.NewScanner()

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// knowledgeScope is the key prefix of every case of one error code on one record type.
func knowledgeScope(errorCode, recordType string) string {
	return syncerror.DocKnowledge + digest(errorCode, recordType) + "#"
}

func knowledgeKey(k Knowledge) string {
	return knowledgeScope(k.ErrorCode, k.RecordType) + digest(k.Class, k.Field, jsonvalue.Canon(k.Before))
}

// KnowledgeID is the public id of a knowledge key ("kn_<scope>_<case>").
func KnowledgeID(key string) string {
	return "kn_" + strings.ReplaceAll(strings.TrimPrefix(key, syncerror.DocKnowledge), "#", "_")
}

// knowledgeKeyOf turns a public id back into its key; false when id is not one.
func knowledgeKeyOf(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, "kn_")
	a, b, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 || len(a) != 16 || len(b) != 16 || !isHex(a) || !isHex(b) {
		return "", false
	}
	return syncerror.DocKnowledge + a + "#" + b, true
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ErrNotLearnable means the stored-data DLP policy refuses to keep a value as knowledge.
var ErrNotLearnable = errors.New("the value holds a secret, card number or national id and is not learned")

// Learnable applies the stored-data policy: contact data and IBANs may be kept (a fix may
// need them), secrets, card numbers and national ids never.
func Learnable(field string, values ...any) error {
	for _, v := range values {
		doc, err := json.Marshal(map[string]any{field: v})
		if err != nil {
			return err
		}
		res, err := learnScanner.ScanJSON(dlp.Stored, doc)
		if err != nil {
			return err
		}
		for _, f := range res.Findings {
			switch f.Type {
			case dlp.TypeEmail, dlp.TypePhone, dlp.TypeIBAN:
			default:
				return fmt.Errorf("%w (%s)", ErrNotLearnable, f.Type)
			}
		}
	}
	return nil
}

// Verdict is a human decision on a fix, as learned.
type Verdict struct {
	Approved bool
	Actor    string
	Reason   string
	At       time.Time
}

// Learn records v for every field change of fix on row c. A change the DLP policy refuses
// is skipped (and counted in skipped); other failures are returned after trying all.
func (l Learning) Learn(ctx context.Context, c syncerror.Claim, fix []syncerror.FieldChange, v Verdict) (skipped int, err error) {
	if c.Proposal == nil {
		return 0, nil
	}
	var errs []error
	for _, ch := range fix {
		if Learnable(ch.Path, ch.Before, ch.After) != nil {
			skipped++
			continue
		}
		k := Knowledge{Class: c.Proposal.Class, ErrorCode: c.Record.ErrorCode, RecordType: c.Record.RecordType, Field: ch.Path, Before: ch.Before}
		key := knowledgeKey(k)
		_, uerr := syncerror.UpdateDoc(ctx, l.Docs, c.TenantID, key, v.At, func(cur *Knowledge, exists bool) error {
			if !exists {
				*cur = k
				cur.Approvers, cur.Rejected = []string{}, []RejectedValue{}
			}
			cur.apply(ch.After, v)
			return nil
		})
		if uerr != nil {
			errs = append(errs, uerr)
		}
	}
	return skipped, errors.Join(errs...)
}

func (k *Knowledge) apply(value any, v Verdict) {
	at := v.At.UTC()
	k.UpdatedAt = at
	if v.Approved {
		if !k.HasValue || !jsonvalue.Same(k.Value, value) {
			k.Value, k.HasValue, k.Approvals, k.Rejections, k.Approvers, k.CorrectedBy = value, true, 0, 0, []string{}, ""
		}
		k.Approvals++
		if !slices.Contains(k.Approvers, v.Actor) && len(k.Approvers) < maxApprovers {
			k.Approvers = append(k.Approvers, v.Actor)
		}
		k.LastApprovedBy, k.LastApprovedAt = v.Actor, &at
		k.Rejected = slices.DeleteFunc(k.Rejected, func(r RejectedValue) bool { return jsonvalue.Same(r.Value, value) })
		return
	}
	if k.HasValue && jsonvalue.Same(k.Value, value) {
		k.Rejections++
	}
	for i := range k.Rejected {
		if jsonvalue.Same(k.Rejected[i].Value, value) {
			r := &k.Rejected[i]
			r.Reason, r.By, r.At, r.Count = v.Reason, v.Actor, at, r.Count+1
			return
		}
	}
	if len(k.Rejected) == maxRejectedValues {
		k.Rejected = k.Rejected[1:]
	}
	k.Rejected = append(k.Rejected, RejectedValue{Value: value, Reason: v.Reason, By: v.Actor, At: at, Count: 1})
}

// proposable reports whether the learned value may be proposed: people approved it and
// have not rejected it since.
func (k Knowledge) proposable() bool {
	return k.HasValue && !k.rejects(k.Value)
}

func (k Knowledge) rejects(value any) bool {
	for _, r := range k.Rejected {
		if jsonvalue.Same(r.Value, value) {
			return true
		}
	}
	return false
}

// confidence grows with approvals and falls with rejections (Laplace's rule of
// succession), never quite 1: one approval gives 0.67, five 0.86, ten 0.92.
func (k Knowledge) confidence() float64 {
	return min(0.99, float64(k.Approvals+1)/float64(k.Approvals+k.Rejections+2))
}

// cases reads what the tenant learned about c's error code and record type.
func (l Learning) cases(ctx context.Context, c syncerror.Claim) ([]Knowledge, error) {
	var out []Knowledge
	cursor, prefix := "", knowledgeScope(c.Record.ErrorCode, c.Record.RecordType)
	for len(out) < maxKnowledgeScan {
		docs, next, err := l.Docs.ListDocs(ctx, c.TenantID, prefix, 100, cursor)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			k, err := knowledgeOf(d)
			if err != nil {
				return nil, err
			}
			out = append(out, k)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return out, nil
}

func knowledgeOf(d syncerror.Doc) (Knowledge, error) {
	var k Knowledge
	// With its digits: a learned value is what a later proposal writes.
	if err := jsonvalue.Unmarshal(d.Body, &k); err != nil {
		return Knowledge{}, fmt.Errorf("knowledge %s: %w", d.Key, err)
	}
	k.ID, k.Version, k.UpdatedAt = KnowledgeID(d.Key), d.Version, d.UpdatedAt
	if k.Approvers == nil {
		k.Approvers = []string{}
	}
	if k.Rejected == nil {
		k.Rejected = []RejectedValue{}
	}
	return k, nil
}

// payloadFields reads the row's payload's top-level fields (fix paths name them).
func payloadFields(c syncerror.Claim) map[string]any {
	var payload map[string]any
	_ = jsonvalue.Unmarshal(c.Record.Payload, &payload) // digits, as the case was keyed
	return payload
}

// Propose builds a proposal from what people approved for c's cases: for each payload
// field whose value before matches a learned case, the learned value. It reports false
// when nothing learned applies. No AI is called.
func (l Learning) Propose(ctx context.Context, c syncerror.Claim, inferenceID string, now time.Time) (syncerror.Proposal, bool, error) {
	known, err := l.cases(ctx, c)
	if err != nil || len(known) == 0 {
		return syncerror.Proposal{}, false, err
	}
	payload := payloadFields(c)
	var hits []Knowledge
	for _, k := range known {
		if v, ok := payload[k.Field]; ok && k.proposable() && jsonvalue.Same(v, k.Before) {
			hits = append(hits, k)
		}
	}
	if len(hits) == 0 {
		return syncerror.Proposal{}, false, nil
	}
	// One class per proposal: the best-supported case's, with every case of that class.
	slices.SortFunc(hits, func(a, b Knowledge) int { return b.Approvals - a.Approvals })
	class := hits[0].Class
	p := syncerror.Proposal{Class: class, Source: syncerror.SourceLearned, Confidence: 1, InferenceID: inferenceID, Provider: "knowledge", DiagnosedAt: now.UTC()}
	prov := &syncerror.Provenance{Approvals: -1}
	people := map[string]bool{}
	var fields []string
	for _, k := range hits {
		if k.Class != class {
			continue
		}
		p.Fix = append(p.Fix, syncerror.FieldChange{Path: k.Field, Before: k.Before, After: k.Value})
		p.Confidence = min(p.Confidence, k.confidence())
		fields = append(fields, fmt.Sprintf("%s %s → %s", k.Field, jsonvalue.Canon(k.Before), jsonvalue.Canon(k.Value)))
		prov.KnowledgeIDs = append(prov.KnowledgeIDs, k.ID)
		if prov.Approvals < 0 || k.Approvals < prov.Approvals {
			prov.Approvals = k.Approvals
		}
		prov.Rejections += k.Rejections
		for _, a := range k.Approvers {
			people[a] = true
		}
		if prov.LastApprovedAt == nil || k.LastApprovedAt != nil && k.LastApprovedAt.After(*prov.LastApprovedAt) {
			prov.LastApprovedBy, prov.LastApprovedAt = k.LastApprovedBy, k.LastApprovedAt
		}
	}
	prov.People = len(people)
	p.Learned = prov
	p.Summary = "Learned fix: " + strings.Join(fields, "; ")
	p.Rationale = fmt.Sprintf("People of this tenant approved this fix for the same field and value %d time(s) (%d people); "+
		"rejected %d time(s). No AI was asked.", prov.Approvals, prov.People, prov.Rejections)
	return p, true, nil
}

// WithoutRejected drops from p's fix every change people rejected for the same case, and
// says so in the rationale.
func (l Learning) WithoutRejected(ctx context.Context, c syncerror.Claim, p syncerror.Proposal) (syncerror.Proposal, error) {
	if len(p.Fix) == 0 {
		return p, nil
	}
	known, err := l.cases(ctx, c)
	if err != nil || len(known) == 0 {
		return p, err
	}
	var kept []syncerror.FieldChange
	var dropped []string
	for _, ch := range p.Fix {
		rejected := false
		for _, k := range known {
			if k.Class == p.Class && k.Field == ch.Path && jsonvalue.Same(k.Before, ch.Before) && k.rejects(ch.After) {
				rejected = true
			}
		}
		if rejected {
			dropped = append(dropped, ch.Path)
			continue
		}
		kept = append(kept, ch)
	}
	if len(dropped) > 0 {
		p.Fix = append([]syncerror.FieldChange{}, kept...)
		p.Rationale += " A fix people rejected for the same case is not proposed again: " + strings.Join(dropped, ", ") + "."
	}
	return p, nil
}
