package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
)

// Governed is the only way to reach a provider. For each call it checks attribution,
// anonymizes everything the provider will read (fail closed), calls the provider, and
// records the trace, the cost of every provider call and the audit events, also when the
// call fails. It is safe for concurrent use.
type Governed struct {
	provider Provider
	scanner  PromptScanner
	traces   TraceStore
	costs    CostStore
	auditor  Auditor
	now      func() time.Time
	metrics  io.Writer // nil: emf.Out
}

// NewGoverned returns the governed client of p. A nil dependency makes every call fail
// (with nothing sent) rather than run ungoverned.
func NewGoverned(p Provider, s PromptScanner, t TraceStore, c CostStore, a Auditor) *Governed {
	return &Governed{provider: p, scanner: s, traces: t, costs: c, auditor: a, now: time.Now}
}

// WithClock returns a copy of g that reads the time from now.
func (g *Governed) WithClock(now func() time.Time) *Governed {
	c := *g
	c.now = now
	return &c
}

// WithProvider returns a copy of g that calls p, governed the same way (the same scanner,
// records and auditor): the diagnose function asks the rules through it before a model.
func (g *Governed) WithProvider(p Provider) *Governed {
	c := *g
	c.provider = p
	return &c
}

// recordTimeout bounds writing an inference's records after its context ended (a var for
// the tests).
var recordTimeout = 5 * time.Second

var errMisconfigured = fmt.Errorf("ai: governed client is missing a dependency: %w", ErrPermanent)

func (g *Governed) configured() bool {
	return g.provider != nil && g.scanner != nil && g.traces != nil && g.costs != nil && g.auditor != nil
}

// Diagnose diagnoses one sync error: suggest, then assessQuality of the suggestion, both
// on the anonymized request; one call when the suggestion carries the model's own
// confidence (Usage.SelfAssessed: the model providers ask for it in the same answer). inferenceID must be unique per attempt (for example the
// claim id and the attempt number): the trace and cost records are keyed by it, so a
// redelivery of the same attempt overwrites instead of counting twice. claimID names the
// processed row, for the trace and the audit record.
//
// Errors: ErrNoAttribution (nothing recorded: there is no tenant to record it for),
// ErrScanRefused, or a provider failure wrapping ErrTransient or ErrPermanent.
func (g *Governed) Diagnose(ctx context.Context, id identity.Identity, inferenceID, claimID string, req DiagnosisRequest) (Diagnosis, error) {
	if !id.Attributable() {
		return Diagnosis{}, ErrNoAttribution
	}
	if !g.configured() {
		return Diagnosis{}, errMisconfigured
	}
	if inferenceID == "" {
		return Diagnosis{}, fmt.Errorf("ai: an inference id is required: %w", ErrPermanent)
	}
	run := g.start(id, inferenceID, claimID, OpDiagnose)

	doc, err := json.Marshal(req)
	if err != nil {
		return Diagnosis{}, run.finish(ctx, nil, fmt.Errorf("ai: payload or context is not JSON: %w", ErrPermanent), "invalid_request")
	}
	anon, err := run.scan(ctx, doc)
	if err != nil {
		return Diagnosis{}, run.finish(ctx, nil, err, "dlp_refused")
	}
	safe, err := decodeAnonymizedRequest(anon)
	if err != nil {
		return Diagnosis{}, run.finish(ctx, nil, err, "dlp_refused")
	}
	// The prompt as the providers serialise it: the user message of the model providers
	// is exactly these bytes.
	run.trace.Prompt, _ = json.Marshal(safe)

	var d Diagnosis
	var assessed bool
	err = run.step(ctx, OpSuggest, func() (any, Usage, error) {
		var u Usage
		var err error
		d, u, err = g.provider.suggest(ctx, &id, safe)
		if err == nil {
			own := d.Confidence
			if d, err = settle(safe, d); err == nil && u.SelfAssessed {
				d.Confidence, err = checkConfidence(own)
				assessed = err == nil
			}
		}
		return d, u, err
	})
	if err != nil {
		return Diagnosis{}, run.finish(ctx, nil, err, "")
	}
	if !assessed {
		err = g.assess(ctx, run, &id, safe, &d)
	}
	if err != nil {
		return Diagnosis{}, run.finish(ctx, nil, err, "")
	}
	run.details["class"] = string(d.Class)
	run.details["retryable"] = d.Retryable
	run.details["confidence"] = d.Confidence
	run.details["changes"] = len(d.Fix)
	if err := run.finish(ctx, d, nil, ""); err != nil {
		return Diagnosis{}, err
	}
	return d, nil
}

// assess is the second call of a diagnosis whose suggestion came without a confidence.
func (g *Governed) assess(ctx context.Context, run *inference, id *identity.Identity, safe DiagnosisRequest, d *Diagnosis) error {
	return run.step(ctx, OpAssessQuality, func() (any, Usage, error) {
		c, u, err := g.provider.assessQuality(ctx, id, safe, cloneDiagnosis(*d))
		if err == nil {
			c, err = checkConfidence(c)
		}
		d.Confidence = c
		out := map[string]any{"confidence": c}
		if len(u.Reasoning) > 0 {
			out["reasoning"] = u.Reasoning
		}
		return out, u, err
	})
}

// Chat answers a conversation through the provider, governed like Diagnose.
func (g *Governed) Chat(ctx context.Context, id identity.Identity, inferenceID string, req ChatRequest) (ChatResponse, error) {
	if !id.Attributable() {
		return ChatResponse{}, ErrNoAttribution
	}
	if !g.configured() {
		return ChatResponse{}, errMisconfigured
	}
	if inferenceID == "" {
		return ChatResponse{}, fmt.Errorf("ai: an inference id is required: %w", ErrPermanent)
	}
	run := g.start(id, inferenceID, "", OpChat)
	if len(req.Messages) == 0 {
		return ChatResponse{}, run.finish(ctx, nil, fmt.Errorf("ai: chat without messages: %w", ErrPermanent), "invalid_request")
	}
	doc, err := json.Marshal(req)
	if err != nil {
		return ChatResponse{}, run.finish(ctx, nil, fmt.Errorf("ai: chat request: %w", ErrPermanent), "invalid_request")
	}
	anon, err := run.scan(ctx, doc)
	if err != nil {
		return ChatResponse{}, run.finish(ctx, nil, err, "dlp_refused")
	}
	safe, err := decodeAnonymizedChat(anon, req)
	if err != nil {
		return ChatResponse{}, run.finish(ctx, nil, err, "dlp_refused")
	}
	run.trace.Prompt, _ = json.Marshal(safe)
	var resp ChatResponse
	err = run.step(ctx, OpChat, func() (any, Usage, error) {
		var u Usage
		var err error
		resp, u, err = g.provider.chat(ctx, &id, safe)
		return resp, u, err
	})
	if err != nil {
		return ChatResponse{}, run.finish(ctx, nil, err, "")
	}
	if err := run.finish(ctx, resp, nil, ""); err != nil {
		return ChatResponse{}, err
	}
	return resp, nil
}

// inference accumulates what one governed call records.
type inference struct {
	g     *Governed
	id    identity.Identity
	trace Trace
	costs []CostRecord
	// stored counts the costs already in the store (storeCosts).
	stored   int
	details  map[string]any
	resource string
}

func (g *Governed) start(id identity.Identity, inferenceID, claimID, op string) *inference {
	resource := "inference/" + inferenceID
	if claimID != "" {
		resource = "syncerror/" + claimID
	}
	return &inference{
		g:  g,
		id: id,
		trace: Trace{
			TenantID: id.TenantID, InferenceID: inferenceID, ClaimID: claimID, Operation: op,
			Provider: g.provider.Name(), Identity: id, StartedAt: g.now().UTC(), Steps: []TraceStep{},
		},
		details:  map[string]any{"inferenceId": inferenceID, "operation": op, "provider": g.provider.Name()},
		resource: resource,
	}
}

// scan anonymizes doc and records the findings; a finding is audited before anything is
// sent, and an audit failure stops the send like a scan failure does. The scanner's
// output is checked again by the decoding that follows.
func (r *inference) scan(ctx context.Context, doc []byte) ([]byte, error) {
	anon, counts, err := r.g.scanner.Anonymize(ctx, doc)
	if err != nil {
		// The scanner's error text is not recorded: it may quote what it was scanning.
		return nil, fmt.Errorf("%w: %w", ErrScanRefused, err)
	}
	if !json.Valid(anon) || !bytes.HasPrefix(bytes.TrimSpace(anon), []byte("{")) {
		return nil, fmt.Errorf("%w: the scanner returned something that is not a JSON object", ErrScanRefused)
	}
	findings := map[string]int{}
	total := 0
	for k, n := range counts {
		if n > 0 {
			findings[k] = n
			total += n
		}
	}
	if total > 0 {
		r.trace.DLPFindings = findings
		r.details["dlpFindings"] = total
		err := r.g.auditor.Audit(ctx, AuditEvent{
			Identity: r.id, ActionType: ActionTypeDLP, ActionKey: ActionKeyDLPScan, Result: ResultSuccess,
			Resource: r.resource,
			Details: map[string]any{
				"destination": "ai_prompt", "inferenceId": r.trace.InferenceID,
				"findings": maps.Clone(findings), "total": total,
			},
		})
		if err != nil {
			return nil, fmt.Errorf("%w: auditing the scan: %w", ErrScanRefused, err)
		}
	}
	return anon, nil
}

// step runs one provider call and records it in the trace and as a cost record. A model
// call already paid for is stored before this one starts: were the function to stop
// during this call (a timeout, a crash), the redelivery would pay again but not count
// that one. A failure to store it is left to finish, which stores it again and fails the
// inference if it cannot.
func (r *inference) step(ctx context.Context, op string, call func() (any, Usage, error)) error {
	if r.paidUnstored() {
		_ = r.storeCosts(ctx)
	}
	started := r.g.now().UTC()
	out, u, err := call()
	ended := r.g.now().UTC()
	if u.Model == "" {
		u.Model = r.trace.Model
	}
	st := TraceStep{Operation: op, Model: u.Model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		StartedAt: started, Duration: ended.Sub(started)}
	if err != nil {
		st.Error = r.errorText(err)
	} else {
		st.Response, _ = json.Marshal(out)
	}
	r.trace.Steps = append(r.trace.Steps, st)
	r.trace.Model = u.Model
	// A call that failed before the model answered costs nothing; one whose answer was
	// unusable was still billed.
	if err == nil || u.InputTokens > 0 || u.OutputTokens > 0 {
		r.costs = append(r.costs, CostRecord{
			TenantID: r.id.TenantID, InferenceID: r.trace.InferenceID, Operation: op,
			Provider: r.trace.Provider, Model: u.Model, Identity: r.id,
			InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CostUSD: Cost(u), Priced: Priced(u.Model), At: ended,
		})
	}
	return err
}

// errorText is err's text as a trace may keep it: the record policy applied, since a
// provider's error can quote the request. It fails closed: the text is withheld when it
// cannot be redacted. (Redaction is CPU only; no context of the caller's is needed.)
func (r *inference) errorText(err error) string {
	text, rerr := r.g.scanner.RedactText(context.Background(), err.Error())
	if rerr != nil {
		return "error text withheld: redaction failed"
	}
	return text
}

// redactedError is an inference's failure as it leaves the governed client: the text is
// the record policy's redaction of err's (a provider's error answer can quote the request
// or the credential it refused, and the caller logs it), the chain is err's.
type redactedError struct {
	text string
	err  error
}

func (e redactedError) Error() string { return e.text }
func (e redactedError) Unwrap() error { return e.err }

// finish persists the trace, the cost records and the ai.inference audit event. It
// returns cause (the inference's own failure, wrapping kept) unless recording failed: an
// inference without its records is retried, so that failure is transient.
func (r *inference) finish(ctx context.Context, response any, cause error, reason string) error {
	r.trace.Duration = r.g.now().UTC().Sub(r.trace.StartedAt)
	result := ResultSuccess
	if cause != nil {
		result = ResultFailure
		r.details["error"] = errorKind(cause)
		if reason != "" {
			r.details["reason"] = reason
		}
		text := r.errorText(cause)
		if errors.Is(cause, ErrScanRefused) {
			r.trace.Error = "DLP scan failed; nothing was sent"
		} else {
			r.trace.Error = text
		}
		// The caller logs what is returned: it carries the trace's redacted text, and
		// still the sentinels (ErrTransient, ErrPermanent, ...) for errors.Is.
		cause = redactedError{text: text, err: cause}
	} else if response != nil {
		r.trace.Response, _ = json.Marshal(response)
	}
	var in, out int
	var cost float64
	priced := true
	for _, c := range r.costs {
		in += c.InputTokens
		out += c.OutputTokens
		cost += c.CostUSD
		priced = priced && c.Priced
	}
	r.details["model"] = r.trace.Model
	r.details["inputTokens"] = in
	r.details["outputTokens"] = out
	r.details["costUsd"] = cost
	r.details["priced"] = priced
	r.details["steps"] = len(r.trace.Steps)

	// The provider billed its calls whatever becomes of the records.
	r.countCost(cost, in, out, priced)

	// The records are written even when the call's context ended (a model timeout is
	// exactly when an operator needs the trace), within a bound of their own that starts
	// when it ends. While the caller still waits, a slow store (DynamoDB backing off a
	// throttled write, a loaded emulator) is waited for: failing the inference then would
	// have its caller run it again, a second model call billed for one diagnosis.
	caller := ctx
	ctx, cancel := context.WithCancel(context.WithoutCancel(caller))
	stop := context.AfterFunc(caller, func() { time.AfterFunc(recordTimeout, cancel) })
	defer func() { stop(); cancel() }()
	var errs []error
	if err := r.g.traces.PutTrace(ctx, r.trace); err != nil {
		errs = append(errs, fmt.Errorf("trace: %w", err))
	}
	if err := r.storeCosts(ctx); err != nil {
		errs = append(errs, err)
	}
	err := r.g.auditor.Audit(ctx, AuditEvent{
		Identity: r.id, ActionType: ActionTypeAI, ActionKey: ActionKeyInference, Result: result,
		Resource: r.resource, Details: r.details,
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("audit: %w", err))
	}
	if len(errs) > 0 {
		if cause != nil {
			return fmt.Errorf("%w: recording inference %s: %w (the inference itself failed: %v)",
				ErrTransient, r.trace.InferenceID, errors.Join(errs...), cause)
		}
		return fmt.Errorf("%w: recording inference %s: %w", ErrTransient, r.trace.InferenceID, errors.Join(errs...))
	}
	return cause
}

func errorKind(err error) string {
	switch {
	case errors.Is(err, ErrScanRefused):
		return "dlp_refused"
	case errors.Is(err, ErrTransient):
		return "transient"
	case errors.Is(err, ErrPermanent):
		return "permanent"
	}
	return "unknown"
}

// decodeAnonymizedRequest rebuilds the request from the scanner's output. Anything that
// does not decode back into a request refuses the send: the scanner must have changed the
// document's shape, and nothing unscanned may fill the gap.
func decodeAnonymizedRequest(anon []byte) (DiagnosisRequest, error) {
	var req DiagnosisRequest
	dec := json.NewDecoder(bytes.NewReader(anon))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return DiagnosisRequest{}, fmt.Errorf("%w: the anonymized request does not decode: %v", ErrScanRefused, err)
	}
	for _, raw := range []json.RawMessage{req.Payload, req.Context} {
		t := bytes.TrimSpace(raw)
		if len(t) > 0 && t[0] != '{' && string(t) != "null" {
			return DiagnosisRequest{}, fmt.Errorf("%w: the anonymized payload or context is not an object", ErrScanRefused)
		}
	}
	return req, nil
}

func decodeAnonymizedChat(anon []byte, orig ChatRequest) (ChatRequest, error) {
	var req ChatRequest
	dec := json.NewDecoder(bytes.NewReader(anon))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return ChatRequest{}, fmt.Errorf("%w: the anonymized chat does not decode: %v", ErrScanRefused, err)
	}
	if len(req.Messages) != len(orig.Messages) {
		return ChatRequest{}, fmt.Errorf("%w: the anonymized chat lost messages", ErrScanRefused)
	}
	for i := range req.Messages {
		if req.Messages[i].Role != orig.Messages[i].Role {
			return ChatRequest{}, fmt.Errorf("%w: the anonymized chat changed a role", ErrScanRefused)
		}
	}
	return req, nil
}

// settle makes a provider's suggestion safe to store and show: a known class, retryable
// exactly when the class is transient (the worker branches on it), no changes for a
// transient class (the retry is the fix), and changes reconciled with the payload the
// provider saw.
func settle(req DiagnosisRequest, d Diagnosis) (Diagnosis, error) {
	d.Class = ErrorClass(strings.TrimSpace(strings.ToLower(string(d.Class))))
	if !d.Class.Valid() {
		return Diagnosis{}, fmt.Errorf("ai: the provider returned the unknown error class %q: %w", d.Class, ErrPermanent)
	}
	d.Retryable = d.Class.Retryable()
	var notes []string
	if d.Retryable && len(d.Fix) > 0 {
		notes = append(notes, "proposed field changes were dropped because the error is transient")
		d.Fix = nil
	}
	fix, more := reconcileFix(req.Payload, d.Fix)
	notes = append(notes, more...)
	if fix == nil {
		fix = []FieldChange{}
	}
	d.Fix = fix
	d.Summary = strings.TrimSpace(d.Summary)
	if d.Summary == "" {
		d.Summary = fmt.Sprintf("%s error on %s %s", d.Class, req.RecordType, req.RecordID)
	}
	d.Rationale = strings.TrimSpace(d.Rationale)
	if len(notes) > 0 {
		d.Rationale = strings.TrimSpace(d.Rationale + " Note: " + strings.Join(notes, "; ") + ".")
	}
	d.Confidence = 0
	return d, nil
}

func checkConfidence(c float64) (float64, error) {
	if math.IsNaN(c) || c < 0 || c > 1 {
		return 0, fmt.Errorf("ai: the provider returned the confidence %v, outside [0, 1]: %w", c, ErrPermanent)
	}
	return c, nil
}

func cloneDiagnosis(d Diagnosis) Diagnosis {
	d.Fix = cloneFix(d.Fix)
	return d
}
