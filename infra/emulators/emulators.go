// Package emulators starts and stops the local AWS emulators the local stack and the
// integration tests run against: dynalite for DynamoDB and fauxqs for SQS, both pinned in
// package.json (Start), and moto_server, AWS's Python mock of every service, as the second
// emulator (StartMoto). Each listens on a free loopback port; the Start functions wait until
// it answers, and the processes die with their parent even if it is killed.
package emulators

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	dynamo, sqs      *emulator
}

// emulator is one emulator process and what it takes to start it again on the same port.
type emulator struct {
	name    string
	program string
	root    string
	// command gives the arguments and the environment that make the program listen on
	// port (127.0.0.1).
	command func(port int) (args, env []string)
	port    int
	// drawn says port was drawn by portOrFree, so another may be drawn (see ready); a
	// port the caller fixed is never changed.
	drawn bool
	probe probe
	log   io.Writer
	// tail keeps the end of the emulator's output for the errors that name its exit.
	tail *tail
	cmd  *exec.Cmd
	// exited is closed when cmd has exited (waitErr is then its error): a readiness wait
	// ends at once on an emulator that died instead of running out its deadline.
	exited  chan struct{}
	waitErr error
	// foreign says another process answered on port during the last readiness wait.
	foreign bool
}

// endpoint is the emulator's address.
func (em *emulator) endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(em.port) }

// readyTimeout bounds the wait for an emulator to answer after its start. The wait ends as
// soon as it answers or exits, so the bound costs nothing when all is well; it is generous
// because on a loaded machine (make test runs its lanes side by side on two cores, beside
// whatever else runs) moto_server's Python start-up alone was measured at 27 s.
const readyTimeout = 2 * time.Minute

// Options configure Start.
type Options struct {
	// Root is the repository root holding node_modules; empty means found by walking up
	// from the working directory.
	Root string
	// Log receives the emulators' output; nil discards it.
	Log io.Writer
	// DynamoDBPort and SQSPort fix the ports; zero picks free ones.
	DynamoDBPort, SQSPort int
	// DynamoDBPath keeps dynalite's data in a LevelDB store in that directory instead of
	// in memory, so that a dynalite killed and started again (RestartDynamoDB) finds its
	// tables and items. Empty keeps everything in memory (the default, and the fastest).
	DynamoDBPath string
	// NoSQS starts dynalite alone: fauxqs costs 0.5-0.75 CPU-s to start, three to four
	// times dynalite, in every test binary that would otherwise start one it never asks.
	// SQSEndpoint is then empty, Env names no SQS endpoint, KillSQS does nothing and
	// RestartSQS is an error.
	NoSQS bool
}

// Start launches both emulators (dynalite alone with NoSQS) and waits (up to readyTimeout) until they answer.
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
	need := []string{dynalite, fauxqs}
	if opt.NoSQS {
		need = need[:1]
	}
	for _, f := range need {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("emulator %s is not installed: run `npm ci` (or `make deps`) in %s", f, root)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is required for the local emulators: %w", err)
	}
	out := opt.Log
	if out == nil {
		out = io.Discard
	}
	guard := filepath.Join(root, "infra", "emulators", "dynalite-guard.cjs")
	if _, err := os.Stat(guard); err != nil {
		return nil, fmt.Errorf("dynalite's guard: %w", err)
	}
	e := &Emulators{dynamo: &emulator{name: "dynalite", program: node, root: root, probe: dynamoProbe, log: out,
		command: func(port int) ([]string, []string) {
			args := []string{"--require", guard, dynalite, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
				"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"}
			if opt.DynamoDBPath != "" {
				args = append(args, "--path", opt.DynamoDBPath)
			}
			return args, nil
		}}}
	ems := []*emulator{e.dynamo}
	if !opt.NoSQS {
		e.sqs = &emulator{name: "fauxqs", program: node, root: root, probe: sqsProbe, log: out,
			command: func(port int) ([]string, []string) {
				return []string{fauxqs}, []string{"FAUXQS_PORT=" + strconv.Itoa(port), "FAUXQS_HOST=127.0.0.1", "FAUXQS_LOGGER=false"}
			}}
		ems = append(ems, e.sqs)
	}
	fixed := []int{opt.DynamoDBPort, opt.SQSPort}
	for i, em := range ems {
		if err := em.usePort(fixed[i]); err != nil {
			return nil, err
		}
	}
	for e.sqs != nil && opt.SQSPort == 0 && e.sqs.port == e.dynamo.port {
		if err := e.sqs.usePort(0); err != nil { // drawn apart, each free: both may have been the same
			return nil, err
		}
	}
	for _, em := range ems {
		if err := em.start(); err != nil {
			e.Stop()
			return nil, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for _, em := range ems {
		if err := em.ready(wctx); err != nil {
			e.Stop()
			return nil, fmt.Errorf("%s did not become ready: %w", em.name, err)
		}
	}
	e.DynamoDBEndpoint = e.dynamo.endpoint()
	if e.sqs != nil {
		e.SQSEndpoint = e.sqs.endpoint()
	}
	return e, nil
}

func (em *emulator) start() error {
	args, env := em.command(em.port)
	cmd := exec.Command(em.program, args...)
	cmd.Dir = em.root
	cmd.Env = append(os.Environ(), env...)
	if em.tail == nil {
		em.tail = &tail{}
	}
	cmd.Stdout = io.MultiWriter(em.log, em.tail)
	cmd.Stderr = cmd.Stdout
	if err := startDyingWithParent(cmd); err != nil {
		return fmt.Errorf("start %s: %w", em.name, err)
	}
	em.cmd = cmd
	em.exited = make(chan struct{})
	go func(done chan struct{}) { em.waitErr = cmd.Wait(); close(done) }(em.exited)
	return nil
}

// waitReady waits until the emulator itself answers its probe, or fails when it exits
// first or ctx ends.
func (em *emulator) waitReady(ctx context.Context) error {
	em.foreign = false
	err := waitReady(ctx, em.endpoint(), em.answersItself, em.exited)
	switch {
	case err != nil && isClosed(em.exited) && em.foreign:
		return fmt.Errorf("%s exited (%v) while another process answered on its port: %w%s", em.name, em.waitErr, errPortTaken, em.tail)
	case err != nil && isClosed(em.exited):
		return fmt.Errorf("%s exited before it answered (%v): %w%s", em.name, em.waitErr, err, em.tail)
	}
	return err
}

// answersItself is the emulator's probe, passed only when the emulator's own process
// holds the port: an answer from another process on it is not this emulator's.
func (em *emulator) answersItself(ctx context.Context, endpoint string) error {
	if err := em.probe(ctx, endpoint); err != nil {
		return err
	}
	if isClosed(em.exited) || !listensOn(em.cmd.Process.Pid, em.port) {
		em.foreign = true
		return fmt.Errorf("%s answered, but process %d does not listen there", endpoint, em.cmd.Process.Pid)
	}
	return nil
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (em *emulator) kill() {
	if em == nil || em.cmd == nil || em.cmd.Process == nil {
		return
	}
	_ = em.cmd.Process.Kill()
	<-em.exited
	em.cmd = nil
}

// restart starts a killed emulator again on its port and waits (up to readyTimeout) until
// it answers.
func (em *emulator) restart(ctx context.Context) error {
	em.kill()
	if err := em.start(); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := em.waitReady(wctx); err != nil {
		em.kill()
		return fmt.Errorf("%s did not become ready again: %w", em.name, err)
	}
	return nil
}

// DynamoDBCPU is the CPU time dynalite has used since it started (Linux only): the bench
// divides it by the requests a measurement made, to tell what the emulator's one thread
// spent on each (infra/bench).
func (e *Emulators) DynamoDBCPU() (time.Duration, error) {
	if e.dynamo == nil || e.dynamo.cmd == nil || e.dynamo.cmd.Process == nil {
		return 0, errors.New("dynalite is not running")
	}
	return processCPU(e.dynamo.cmd.Process.Pid)
}

// KillDynamoDB kills dynalite (SIGKILL); requests to it fail until RestartDynamoDB.
func (e *Emulators) KillDynamoDB() { e.dynamo.kill() }

// RestartDynamoDB starts dynalite again on the same port. Only with Options.DynamoDBPath
// does it find the tables it had; in memory it starts empty.
func (e *Emulators) RestartDynamoDB(ctx context.Context) error { return e.dynamo.restart(ctx) }

// KillSQS kills fauxqs (SIGKILL); it keeps queues in memory, so they and their messages
// are gone. Without SQS (Options.NoSQS) it does nothing.
func (e *Emulators) KillSQS() { e.sqs.kill() }

// RestartSQS starts fauxqs again on the same port, empty: queues must be created again.
func (e *Emulators) RestartSQS(ctx context.Context) error {
	if e.sqs == nil {
		return errors.New("RestartSQS: these emulators were started without SQS (Options.NoSQS)")
	}
	return e.sqs.restart(ctx)
}

// Exited names each emulator that exited on its own (not by Stop or a Kill), with its exit
// status and last output; nil when none did. A test that failed with "connection refused"
// finds its cause here.
func (e *Emulators) Exited() error {
	var errs []error
	for _, em := range []*emulator{e.dynamo, e.sqs} {
		if em != nil && em.cmd != nil && isClosed(em.exited) {
			errs = append(errs, fmt.Errorf("%s on port %d exited on its own (%v)%s", em.name, em.port, em.waitErr, em.tail))
		}
	}
	return errors.Join(errs...)
}

// Stop kills both emulators and waits for them to exit. It is safe to call twice.
func (e *Emulators) Stop() {
	e.dynamo.kill()
	e.sqs.kill()
}

// Env returns the standard AWS SDK variables that point every client at the emulators,
// with dummy credentials and a region, as KEY=VALUE pairs (no SQS endpoint with NoSQS).
func (e *Emulators) Env() []string {
	env := []string{"AWS_ENDPOINT_URL_DYNAMODB=" + e.DynamoDBEndpoint}
	if e.SQSEndpoint != "" {
		env = append(env, "AWS_ENDPOINT_URL_SQS="+e.SQSEndpoint)
	}
	return append(env, "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1")
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

// waitReady probes endpoint until it answers, ctx ends, or exited (when not nil) is closed.
func waitReady(ctx context.Context, endpoint string, p probe, exited <-chan struct{}) error {
	for {
		err := p(ctx, endpoint)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", endpoint, ctx.Err(), err)
		case <-exited:
			return fmt.Errorf("%s: the process exited (last error: %v)", endpoint, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
