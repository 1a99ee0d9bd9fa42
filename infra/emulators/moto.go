package emulators

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Moto is a running moto_server: AWS's own Python mock (moto, pinned in the Makefile's
// aws-tools), one endpoint for every service it emulates — DynamoDB, SQS, KMS, Secrets
// Manager, EventBridge, CloudFormation, Lambda, API Gateway, S3 and more. Its state is in
// memory and shared by every client, so tests keep apart by stage, as on dynalite.
//
// Endpoint is a gate in this process in front of the server: moto_server (5.2.1) answers
// on threads and checks a write's condition and then writes without a lock, so of 20
// concurrent conditional updates of one item two could succeed, where DynamoDB documents
// a conditional write as atomic (one succeeds; dynalite agrees). The gate lets one
// DynamoDB request through at a time; other services pass straight on, so that an SQS
// long poll holds nothing up.
type Moto struct {
	Endpoint string
	// Server is moto_server's own address, without the gate.
	Server string
	em     *emulator
	gate   *http.Server
}

// MotoOptions configure StartMoto.
type MotoOptions struct {
	// Log receives moto_server's output (a line per request); nil discards it.
	Log io.Writer
	// Port fixes the gate's port; zero picks a free one.
	Port int
	// Script, when set, is a Python file run with python3 in place of moto_server, taking
	// the same flags: moto with a fix of its own (the deploy rehearsal's).
	Script string
}

// MotoReadyPath is the cheap GET that answers once moto_server serves (its settings).
const MotoReadyPath = "/moto-api/config"

// MotoAccount is the account id moto answers for every caller.
const MotoAccount = "123456789012"

// StartMoto launches moto_server from PATH and waits (up to readyTimeout) until it answers.
func StartMoto(ctx context.Context, opt MotoOptions) (*Moto, error) {
	bin, err := exec.LookPath("moto_server")
	var args []string
	if opt.Script != "" {
		bin, err = exec.LookPath("python3")
		args = []string{opt.Script}
	}
	if err != nil {
		return nil, fmt.Errorf("moto_server is not installed: run `make aws-tools` (pip install 'moto[server]'): %w", err)
	}
	port, err := portOrFree(opt.Port)
	if err != nil {
		return nil, err
	}
	out := opt.Log
	if out == nil {
		out = io.Discard
	}
	m := &Moto{em: &emulator{name: "moto_server", program: bin, probe: motoProbe, log: out,
		command: func(port int) ([]string, []string) {
			return append(args[:len(args):len(args)], "-H", "127.0.0.1", "-p", strconv.Itoa(port)), nil
		}}}
	if err := m.em.usePort(0); err != nil {
		return nil, err
	}
	if err := m.em.start(); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := m.em.ready(wctx); err != nil {
		m.Stop()
		return nil, fmt.Errorf("moto_server did not become ready: %w", err)
	}
	m.Server = m.em.endpoint()
	if err := m.openGate(port); err != nil {
		m.Stop()
		return nil, err
	}
	return m, nil
}

// AttachMoto puts a gate in this process in front of a moto_server another process runs
// (server is its address): one server for many test binaries, which keep apart by stage as
// they do on one. The gate is this process's own, so its DynamoDB requests still go one at
// a time; two binaries' requests meet only on different tables. Stop closes the gate and
// leaves the server running.
func AttachMoto(ctx context.Context, server string) (*Moto, error) {
	wctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := waitReady(wctx, server, motoProbe, nil); err != nil {
		return nil, fmt.Errorf("the shared moto_server at %s does not answer: %w", server, err)
	}
	m := &Moto{Server: server}
	if err := m.openGate(0); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Moto) openGate(port int) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("moto gate: %w", err)
	}
	m.Endpoint = "http://" + l.Addr().String()
	m.gate = &http.Server{Handler: dynamoGate(m.Server), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.gate.Serve(l) }()
	return nil
}

// dynamoGate proxies to moto_server, one DynamoDB request at a time.
func dynamoGate(server string) http.Handler {
	target, _ := url.Parse(server)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var one sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_") {
			one.Lock()
			defer one.Unlock()
		}
		proxy.ServeHTTP(w, r)
	})
}

// Stop closes the gate, kills moto_server (unless attached to another process's) and
// waits for it to exit. It is safe to call twice.
func (m *Moto) Stop() {
	if m.gate != nil {
		_ = m.gate.Close()
	}
	m.em.kill()
}

// Env returns the standard AWS SDK variables that point every client at moto, with dummy
// credentials and a region, as KEY=VALUE pairs.
func (m *Moto) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL=" + m.Endpoint,
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"AWS_REGION=us-east-1",
	}
}

// motoProbe is ready once moto's own API answers. It asks for moto's settings, a few bytes:
// /moto-api/data.json, the dashboard's dump, serialises every model instance moto ever
// made (each DynamoDB item and every copy of one it answered, never released), so on the
// shared server each test binary's probe cost more than the one before (measured
// 2026-12-01: 10 of the store packages' 56 moto CPU-s).
func motoProbe(ctx context.Context, endpoint string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+MotoReadyPath, nil)
	return roundTrip(req)
}
