// Command rehearsal rehearses `cdk deploy` of the dev stage against moto_server: it
// bootstraps the account with the pinned CDK CLI, deploys (the CLI synthesizing the stack
// first, as for an operator), and then checks through the AWS APIs that what moto created is what the template says — tables
// and their indexes, queues and the redrive policy, schedules, the event bus, functions
// (runtime, architecture, memory, timeout, environment, role) and the diagnosis queue's
// event source. `make deploy-rehearsal` runs it after `make build`.
//
// moto stands in for AWS with three workarounds, each in this command's own set-up (the
// README lists them and what the rehearsal therefore cannot prove):
//   - the CLI is pointed at http://localhost:<port>, not 127.0.0.1: moto reads a
//     TemplateURL's bucket from the path only when the host says localhost (or is an S3
//     host name), and otherwise answers NoSuchBucket;
//   - moto runs with moto_rehearsal.py, which fixes its CloudFormation KMS key tags;
//   - resource types moto's CloudFormation does not implement are created as nothing:
//     the rehearsal lists them, checks none of them, and fails if a type it does check
//     was not created.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/emulators"
)

func main() {
	stage := flag.String("stage", "dev", "the stage to deploy")
	functionsDir := flag.String("functions", "build/functions", "the built functions (make build)")
	keep := flag.Bool("keep", false, "leave moto running after the checks, for a look around (Ctrl-C ends it)")
	flag.Parse()
	if err := run(*stage, *functionsDir, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "rehearsal:", err)
		os.Exit(1)
	}
}

func run(stage, functionsDir string, keep bool) error {
	ctx := context.Background()
	root, err := emulators.FindRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "syncassist-rehearsal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logf, err := os.Create(filepath.Join(work, "moto.log"))
	if err != nil {
		return err
	}
	moto, err := emulators.StartMoto(ctx, emulators.MotoOptions{Log: logf,
		Script: filepath.Join(root, "infra", "rehearsal", "moto_rehearsal.py")})
	if err != nil {
		return err
	}
	defer moto.Stop()
	endpoint := strings.Replace(moto.Server, "127.0.0.1", "localhost", 1)
	env := append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint, "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local",
		"AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=us-east-1", "CDK_DEFAULT_ACCOUNT="+emulators.MotoAccount,
		"CDK_DEFAULT_REGION=us-east-1", "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20")
	assembly := filepath.Join(work, "cdk.out")
	stack := "SyncAssist-" + stage
	cdk := func(dir string, args ...string) error {
		start := time.Now()
		fmt.Printf("$ cdk %s\n", strings.Join(args, " "))
		// The pinned CLI itself, as npx --no-install would find it, without npx's start.
		cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "cdk"), args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("cdk %s: %w\n%s", args[0], err, out)
		}
		fmt.Printf("  done in %s\n", time.Since(start).Round(time.Second))
		return nil
	}
	// Bootstrap first, from the work directory: where no cdk.json names an app, the CLI
	// bootstraps the environment it is given without synthesizing one.
	if err := cdk(work, "bootstrap", "aws://"+emulators.MotoAccount+"/us-east-1"); err != nil {
		return err
	}
	// Then the deploy synthesizes and deploys in one CLI, as `cdk deploy` does for an
	// operator (a CLI's start is 2-3 CPU-s), leaving the assembly for the checks.
	if err := cdk(root, "deploy", stack, "--app", "go run ./infra", "-c", "stage="+stage, "-c", "functionsDir="+functionsDir,
		"-o", assembly, "--require-approval", "never"); err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(assembly, stack+".template.json"))
	if err != nil {
		return err
	}
	var tmpl template
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return err
	}
	r, err := newChecker(ctx, moto, stack, tmpl)
	if err != nil {
		return err
	}
	r.checkAll(ctx)
	r.print(os.Stdout)
	if keep {
		fmt.Printf("\nmoto keeps the deployed stack at %s until Ctrl-C\n", endpoint)
		select {}
	}
	if r.failed > 0 {
		return fmt.Errorf("%d of %d checks failed", r.failed, r.passed+r.failed)
	}
	return nil
}
