// Command evaldiagnoser measures a diagnoser on labelled corpora of sync errors (make
// eval-diagnoser): accuracy, precision and recall per class, a confusion matrix and
// calibration, per corpus file. By default it runs the offline rules; with
// OPENAI_BASE_URL (or AI_PROVIDER=openai and AI_MODEL) it runs that OpenAI-compatible model
// server instead, through the same governed client and DLP anonymization as the worker,
// so a tenant can compare a model with the rules on its own errors before switching.
//
//	go run ./infra/evaldiagnoser [-v] [corpus.json ...]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aieval"
	"github.com/syncassist/syncassist/shared/dlp"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "evaldiagnoser:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("evaldiagnoser", flag.ContinueOnError)
	verbose := fs.Bool("v", false, "print one line per case (do not use on a held-out set you are still tuning against)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		var err error
		if files, err = filepath.Glob("shared/ai/testdata/diagnoser_*.json"); err != nil || len(files) == 0 {
			return fmt.Errorf("no corpus named and none under shared/ai/testdata (run from the repository root)")
		}
	}
	cfg, err := ai.ProviderConfigFromEnv(getenv)
	if err != nil {
		return err
	}
	if cfg.Name == "" && cfg.OpenAIBaseURL != "" {
		cfg.Name = ai.ProviderOpenAI
	}
	if cfg.Name == ai.ProviderBedrock {
		return fmt.Errorf("the evaluation runs the rules or an OpenAI-compatible server; Bedrock models are reachable through an OpenAI-compatible gateway")
	}
	p, err := ai.NewProvider(ctx, cfg)
	if err != nil {
		return err
	}
	var records aieval.Records
	g := records.Governed(p, scanner{dlp.NewScanner()})
	fmt.Fprintf(out, "provider %s", p.Name())
	if cfg.Name == ai.ProviderOpenAI {
		fmt.Fprintf(out, " (%s at %s)", cfg.Model, cfg.OpenAIBaseURL)
	}
	fmt.Fprintln(out)
	var all []aieval.Result
	for _, f := range files {
		c, err := aieval.Load(f)
		if err != nil {
			return err
		}
		results := aieval.Run(ctx, g, c.Cases)
		all = append(all, results...)
		fmt.Fprintf(out, "\n== %s (%d cases)\n", f, len(c.Cases))
		if c.Use != "" {
			fmt.Fprintf(out, "use: %s\n", c.Use)
		}
		if *verbose {
			aieval.WriteCases(out, results)
			fmt.Fprintln(out)
		}
		aieval.Summarize(results).Write(out)
	}
	if len(files) > 1 {
		fmt.Fprintf(out, "\n== all %d files\n", len(files))
		aieval.Summarize(all).Write(out)
	}
	if cfg.Name == ai.ProviderOpenAI {
		fmt.Fprintf(out, "\ntokens in %d, out %d; cost USD %.4f", records.InputTokens, records.OutputTokens, records.CostUSD)
		if records.Unpriced > 0 {
			fmt.Fprintf(out, " (%d calls unpriced: the model is not in the price table)", records.Unpriced)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// scanner anonymizes with DLP's AI-prompt policy, as the worker's client does.
type scanner struct{ s *dlp.Scanner }

func (p scanner) Anonymize(_ context.Context, doc []byte) ([]byte, map[string]int, error) {
	r, err := p.s.ScanJSON(dlp.AIPrompt, doc)
	if err != nil {
		return nil, nil, err
	}
	return r.Output, r.Counts(), nil
}

func (p scanner) RedactText(_ context.Context, text string) (string, error) {
	return p.s.RedactString(dlp.Record, text)
}
