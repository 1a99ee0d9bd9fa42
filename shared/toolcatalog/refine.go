package toolcatalog

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// MetaRefine is the _meta key with which a tools/call of field_mapping_suggest asks for
// AI refinement: {"_meta": {"dev.syncassist/aiRefine": true}}. It is request metadata,
// not an argument, so the tool's input schema stays the spec's; an agent host sets it
// when its operator wants a model's opinion on the ambiguous cases and accepts the cost.
const MetaRefine = "dev.syncassist/aiRefine"

// AIRefinement reports what the AI refinement did.
type AIRefinement struct {
	Requested bool `json:"requested"`
	// Used is true when the model's answer was applied.
	Used bool `json:"used"`
	// Targets are the ambiguous target fields the model was asked about.
	Targets []string `json:"targets"`
	// Changed are the targets whose candidates' confidence the answer changed.
	Changed []string `json:"changed"`
	Note    string   `json:"note,omitempty"`
}

// Bounds of one refinement: the prompt stays small and the model picks among a few
// candidates the rules already found, never among all fields.
const (
	maxRefinedTargets    = 20
	maxRefineCandidates  = 4
	maxSamplesPerField   = 2
	maxSampleChars       = 64
	ambiguousBelow       = 0.75
	ambiguousAbove       = 0.3
	ambiguousMargin      = 0.1
	maxRefinedConfidence = 0.95
	maxModelReasonChars  = 200
	noFitPenalty         = 0.1
	notChosenPenalty     = 0.05
)

func wantsRefinement(meta map[string]any) bool {
	v, _ := meta[MetaRefine].(bool)
	return v
}

// ambiguous lists the targets whose best candidate the rules cannot vouch for: a middling
// score, or a runner-up almost as good.
func (m *mapper) ambiguous() []int {
	var out []int
	for ti, cs := range m.cands {
		if len(cs) == 0 || cs[0].score < ambiguousAbove {
			continue
		}
		nearTie := len(cs) > 1 && cs[0].score-cs[1].score < ambiguousMargin && cs[0].score < 0.9
		if cs[0].score < ambiguousBelow || nearTie {
			out = append(out, ti)
		}
		if len(out) == maxRefinedTargets {
			break
		}
	}
	return out
}

type refineCandidate struct {
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	Description  string   `json:"description,omitempty"`
	SampleFormat string   `json:"sampleFormat,omitempty"`
	Samples      []string `json:"samples,omitempty"`
}

type refineTarget struct {
	Name        string            `json:"name"`
	Type        string            `json:"type"`
	Description string            `json:"description,omitempty"`
	Required    bool              `json:"required,omitempty"`
	Candidates  []refineCandidate `json:"candidates"`
}

type refineAnswer struct {
	Choices []struct {
		Target     string  `json:"target"`
		Source     *string `json:"source"`
		Confidence float64 `json:"confidence"`
		Reason     string  `json:"reason"`
	} `json:"choices"`
}

const refineSystemPrompt = "You match fields between two business systems' records (ERP, CRM, webshop, " +
	"marketplace, shipping). For each target field choose the one candidate source field that holds the same " +
	"information, or null when none does. Values may appear as placeholders such as [EMAIL_1]. Answer with JSON " +
	`only: {"choices":[{"target":"<target name>","source":"<candidate name or null>","confidence":<0..1>,` +
	`"reason":"<one short sentence>"}]}`

// refine asks the governed AI client about the ambiguous targets. Governed anonymizes the
// prompt (sample values included) with the DLP AI-prompt policy, attributes the call to
// the caller's tenant and records trace, cost and audit; the sample values go nowhere
// else. A failure leaves the rule-based suggestions standing.
func (c *Catalog) refine(call *toolCall, m *mapper, r *AIRefinement) {
	r.Targets, r.Changed = []string{}, []string{}
	if c.AI == nil {
		r.Note = "no AI client is configured; the suggestions are rule-based"
		return
	}
	targets := m.ambiguous()
	if len(targets) == 0 {
		r.Note = "no suggestion was ambiguous, so the AI was not asked"
		return
	}
	var prompt struct {
		Targets []refineTarget `json:"targets"`
	}
	for _, ti := range targets {
		t := m.targets[ti]
		rt := refineTarget{Name: t.spec.Name, Type: t.spec.Type, Description: t.spec.Description, Required: t.spec.Required}
		for _, cand := range m.cands[ti][:min(maxRefineCandidates, len(m.cands[ti]))] {
			s := m.sources[cand.source]
			rc := refineCandidate{Name: s.spec.Name, Type: s.spec.Type, Description: s.spec.Description,
				SampleFormat: formatWords[s.samples.format]}
			for _, v := range s.values[:min(maxSamplesPerField, len(s.values))] {
				rc.Samples = append(rc.Samples, truncate(sampleText(v), maxSampleChars))
			}
			rt.Candidates = append(rt.Candidates, rc)
		}
		prompt.Targets = append(prompt.Targets, rt)
		r.Targets = append(r.Targets, t.spec.Name)
	}
	user, err := json.Marshal(prompt)
	if err != nil {
		r.Note = "the AI refinement could not be prepared; the suggestions are rule-based"
		return
	}
	resp, err := c.AI.Chat(call.ctx, call.id, newInferenceID(), ai.ChatRequest{Messages: []ai.ChatMessage{
		{Role: ai.RoleSystem, Content: refineSystemPrompt},
		{Role: ai.RoleUser, Content: string(user)},
	}})
	if err != nil {
		httpapi.Logger(call.ctx).Warn("field mapping refinement failed", "error", err)
		r.Note = "the AI refinement was unavailable; the suggestions are rule-based"
		return
	}
	answer, ok := parseRefineAnswer(resp.Content)
	if !ok {
		r.Note = "the model's answer was not usable; the suggestions are rule-based"
		return
	}
	r.Used = true
	for _, choice := range answer.Choices {
		i := slices.IndexFunc(targets, func(ti int) bool { return m.targets[ti].spec.Name == choice.Target })
		if i < 0 {
			continue
		}
		if m.applyChoice(targets[i], choice.Source, clamp(choice.Confidence, 0, 1), truncate(choice.Reason, maxModelReasonChars)) {
			r.Changed = append(r.Changed, choice.Target)
		}
	}
}

// applyChoice blends the model's pick into the rule scores of target ti: the chosen
// candidate moves halfway towards the model's confidence (never above 0.95: the model saw
// anonymized samples and a short context), the others drop a little. A source the rules
// did not offer is ignored: the model chooses, it does not invent.
func (m *mapper) applyChoice(ti int, source *string, conf float64, reason string) bool {
	cs := m.cands[ti]
	offered := cs[:min(maxRefineCandidates, len(cs))]
	changed := false
	if source == nil {
		for i := range offered {
			cs[i].score = clamp(cs[i].score-noFitPenalty, 0, 0.99)
			cs[i].reasons = append(cs[i].reasons, "the AI refinement found no fitting source")
			cs[i].refined = true
			changed = true
		}
		m.sort(ti)
		return changed
	}
	pick := slices.IndexFunc(offered, func(c candidate) bool { return m.sources[c.source].spec.Name == *source })
	if pick < 0 {
		return false
	}
	for i := range offered {
		c := &cs[i]
		if i == pick {
			blended := clamp(0.5*c.score+0.5*min(conf, maxRefinedConfidence), 0, maxRefinedConfidence)
			if blended > c.score {
				c.score = blended
			}
			why := "the AI refinement chose it"
			if reason != "" {
				why += ": " + reason
			}
			c.reasons = append(c.reasons, why)
		} else {
			c.score = clamp(c.score-notChosenPenalty, 0, 0.99)
		}
		c.refined = true
		changed = true
	}
	m.sort(ti)
	return changed
}

// sampleText is a sample as the prompt shows it: a number with its digits as sent, so
// that the governed client's DLP scan judges the value itself (a card number's checksum).
func sampleText(v any) string {
	switch n := v.(type) {
	case json.Number:
		return n.String()
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func parseRefineAnswer(content string) (refineAnswer, bool) {
	start, end := strings.IndexByte(content, '{'), strings.LastIndexByte(content, '}')
	if start < 0 || end <= start {
		return refineAnswer{}, false
	}
	var a refineAnswer
	if err := json.Unmarshal([]byte(content[start:end+1]), &a); err != nil || a.Choices == nil {
		return refineAnswer{}, false
	}
	return a, true
}

func newInferenceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "mcp-fm-" + hex.EncodeToString(b[:])
}
