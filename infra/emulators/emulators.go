// Package emulators starts and stops the local AWS emulators the local stack and the
// integration tests run against: dynalite for DynamoDB and fauxqs for SQS, both pinned in
// package.json. Each listens on a free loopback port; Start waits until both answer, and
// the processes die with their parent even if it is killed.
package emulators

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Emulators is a running pair.
type Emulators struct {
	DynamoDBEndpoint string
	SQSEndpoint      string
	procs            []*exec.Cmd
}

// Options configure Start.
type Options struct {
	// Root is the repository root holding node_modules; empty means found by walking up
	// from the working directory.
	Root string
	// Log receives the emulators' output; nil discards it.
	Log io.Writer
	// DynamoDBPort and SQSPort fix the ports; zero picks free ones.
	DynamoDBPort, SQSPort int
}

// Start launches both emulators and waits (up to 30 s) until they answer.
func Start(ctx context.Context, opt Options) (*Emulators, error) {
	root := opt.Root
	if root == "" {
		var err error
		if root, err = FindRoot(); err != nil {
			return nil, err
		}
	}
	dynalite := filepath.Join(root, "node_modules", "dynalite", "cli.js")
	fauxqs := filepath.Join(root, "node_modules", "fauxqs", "dist", "cli.js")
	for _, f := range []string{dynalite, fauxqs} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("emulator %s is not installed: run `npm ci` (or `make deps`) in %s", f, root)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is required for the local emulators: %w", err)
	}
	dport, err := portOrFree(opt.DynamoDBPort)
	if err != nil {
		return nil, err
	}
	sport, err := portOrFree(opt.SQSPort)
	if err != nil {
		return nil, err
	}
	e := &Emulators{
		DynamoDBEndpoint: "http://127.0.0.1:" + strconv.Itoa(dport),
		SQSEndpoint:      "http://127.0.0.1:" + strconv.Itoa(sport),
	}
	out := opt.Log
	if out == nil {
		out = io.Discard
	}
	start := func(env []string, args ...string) error {
		cmd := exec.Command(node, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout, cmd.Stderr = out, out
		dieWithParent(cmd)
		if err := cmd.Start(); err != nil {
			return err
		}
		e.procs = append(e.procs, cmd)
		return nil
	}
	if err := start(nil, dynalite, "--host", "127.0.0.1", "--port", strconv.Itoa(dport), "--createTableMs", "0",
		"--deleteTableMs", "0", "--updateTableMs", "0"); err != nil {
		return nil, fmt.Errorf("start dynalite: %w", err)
	}
	if err := start([]string{"FAUXQS_PORT=" + strconv.Itoa(sport), "FAUXQS_HOST=127.0.0.1", "FAUXQS_LOGGER=false"}, fauxqs); err != nil {
		e.Stop()
		return nil, fmt.Errorf("start fauxqs: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitReady(wctx, e.DynamoDBEndpoint, dynamoProbe); err != nil {
		e.Stop()
		return nil, fmt.Errorf("dynalite did not become ready: %w", err)
	}
	if err := waitReady(wctx, e.SQSEndpoint, sqsProbe); err != nil {
		e.Stop()
		return nil, fmt.Errorf("fauxqs did not become ready: %w", err)
	}
	return e, nil
}

// Stop kills both emulators and waits for them to exit. It is safe to call twice.
func (e *Emulators) Stop() {
	for _, p := range e.procs {
		if p.Process != nil {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}
	e.procs = nil
}

// Env returns the standard AWS SDK variables that point every client at the emulators,
// with dummy credentials and a region, as KEY=VALUE pairs.
func (e *Emulators) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL_DYNAMODB=" + e.DynamoDBEndpoint,
		"AWS_ENDPOINT_URL_SQS=" + e.SQSEndpoint,
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"AWS_REGION=us-east-1",
	}
}

// FindRoot walks up from the working directory to the folder holding package.json and
// go.mod: the repository root.
func FindRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		_, e1 := os.Stat(filepath.Join(dir, "package.json"))
		_, e2 := os.Stat(filepath.Join(dir, "go.mod"))
		if e1 == nil && e2 == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (package.json + go.mod) not found above the working directory")
		}
		dir = parent
	}
}

func portOrFree(p int) (int, error) {
	if p != 0 {
		return p, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

type probe func(ctx context.Context, endpoint string) error

// dynamoProbe is ready once dynalite answers an API call, even with an auth error.
func dynamoProbe(ctx context.Context, endpoint string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader([]byte("{}")))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	return roundTrip(req)
}

func sqsProbe(ctx context.Context, endpoint string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/", nil)
	return roundTrip(req)
}

func roundTrip(req *http.Request) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func waitReady(ctx context.Context, endpoint string, p probe) error {
	for {
		err := p(ctx, endpoint)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", endpoint, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
