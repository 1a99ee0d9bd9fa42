package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aieval"
)

// modelShare is what a model in the loop adds per million sync errors at the rate the
// diagnose function asks it: the worker tries the tenant's learned fixes and the rules
// first and asks a model once, only about an error the rules score below
// ai.DefaultModelBelow. The rate is measured on the demo mix: the labelled sync errors of
// shared/ai/testdata (every vendor and class the product knows), through the rules the
// gate runs. A learned fix answers some errors before the rules do in a tenant's own
// traffic; none is counted here, so the rate is an upper bound.
type modelShare struct {
	asked, total int
	// inTokens is the mean input of the prompts a model is asked, at 4 characters a token
	// (an assumption: the tokenizers of the models priced in shared/ai/price.go average 3.5
	// to 4.5 characters a token on English and JSON).
	inTokens  float64
	outTokens float64
}

func measureModelShare(glob string) (modelShare, error) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		return modelShare{}, fmt.Errorf("no corpus at %s (run from the repository root)", glob)
	}
	m := modelShare{outTokens: 300} // the answer: a class, a summary, a fix or two and a rationale (assumed)
	chars := 0
	for _, f := range files {
		c, err := aieval.Load(f)
		if err != nil {
			return modelShare{}, err
		}
		for _, k := range c.Cases {
			m.total++
			d, err := ai.RulesDiagnosis(k.Request)
			if err == nil && d.Confidence >= ai.DefaultModelBelow {
				continue
			}
			m.asked++
			system, user, err := ai.ModelPrompt(k.Request)
			if err != nil {
				return modelShare{}, err
			}
			chars += len(system) + len(user)
		}
	}
	if m.asked > 0 {
		m.inTokens = float64(chars) / 4 / float64(m.asked)
	}
	return m, nil
}

// rate is the share of sync errors a model is asked about.
func (m modelShare) rate() float64 {
	if m.total == 0 {
		return 0
	}
	return float64(m.asked) / float64(m.total)
}

// perMillion is the model's cost per million sync errors: one call per error asked.
func (m modelShare) perMillion(model string) float64 {
	return m.rate() * aiWhatIf(model, m.inTokens, m.outTokens, 1)
}

func (m modelShare) write(out io.Writer, infraPerMillion float64) {
	const nova = "amazon.nova-micro-v1:0"
	fmt.Fprintf(out, "\nAI tokens: the rules provider (the default) costs none. With a model, it is asked once per sync error the "+
		"rules score below %.2f (the tenant's threshold, default from the held-out calibration): %d of the demo mix's %d "+
		"(%.1f %%; shared/ai/testdata, learned fixes not counted), about %.0f input and %.0f output tokens per call. "+
		"amazon.nova-micro adds $%.2f per million sync errors: $%.2f end to end with the infrastructure above "+
		"(was two calls for every error: $%.2f).\n",
		ai.DefaultModelBelow, m.asked, m.total, 100*m.rate(), m.inTokens, m.outTokens, m.perMillion(nova),
		infraPerMillion+m.perMillion(nova), aiWhatIf(nova, 1500, 300, 2))
}
