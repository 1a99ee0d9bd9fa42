// Command coldstart measures start → ready of function binaries: from the process's start
// to its first invocation answered, with the Lambda runtime API emulated on loopback (the
// binaries are built for the host with the functions' tags, as for Lambda). Each binary
// is started -runs times; the figures are min and median.
//
//	go run ./infra/bench/coldstart -runs 25 build/host/mcp build/host/console
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// sampleEvent is an unauthenticated API Gateway v2 request for the function's own route:
// it answers (401, or the console's 200) without calling AWS, so the figure is the start,
// not a network call.
func sampleEvent(method, path string) string {
	return `{"version":"2.0","routeKey":"` + method + ` ` + path + `","rawPath":"` + path + `","headers":{"content-type":"application/json"},` +
		`"requestContext":{"http":{"method":"` + method + `","path":"` + path + `"},"requestId":"cold"},"body":"{}","isBase64Encoded":false}`
}

// runtimeAPI serves one invocation of event and reports when its response arrives.
type runtimeAPI struct {
	event    string
	answered chan time.Time
	status   chan string
}

func (r *runtimeAPI) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/invocation/next"):
		w.Header().Set("Lambda-Runtime-Aws-Request-Id", "cold-1")
		w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10))
		w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:cold")
		_, _ = io.WriteString(w, r.event)
	case req.Method == http.MethodPost && strings.Contains(req.URL.Path, "/invocation/"):
		body, _ := io.ReadAll(req.Body)
		w.WriteHeader(http.StatusAccepted)
		r.answered <- time.Now()
		r.status <- filepath.Base(req.URL.Path) + " " + firstN(string(body), 80)
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/init/error"):
		body, _ := io.ReadAll(req.Body)
		w.WriteHeader(http.StatusAccepted)
		r.answered <- time.Now()
		r.status <- "init error " + firstN(string(body), 200)
	default:
		http.NotFound(w, req)
	}
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func main() {
	runs := flag.Int("runs", 25, "starts per binary")
	flag.Parse()
	for _, bin := range flag.Args() {
		f, err := blueprint.FunctionNamed(filepath.Base(bin))
		if err != nil || f.Route == nil {
			fmt.Fprintf(os.Stderr, "coldstart: %s: name the binary after an HTTP function of the blueprint\n", bin)
			os.Exit(2)
		}
		if err := measure(bin, *runs, sampleEvent(f.Route.Method, strings.ReplaceAll(f.Route.Path, "{id}", "x"))); err != nil {
			fmt.Fprintln(os.Stderr, "coldstart:", err)
			os.Exit(1)
		}
	}
}

func measure(bin string, runs int, event string) error {
	info, err := os.Stat(bin)
	if err != nil {
		return err
	}
	api := &runtimeAPI{event: event, answered: make(chan time.Time, 1), status: make(chan string, 1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api}
	go srv.Serve(ln)
	defer srv.Close()
	var took []time.Duration
	var last string
	for i := 0; i < runs; i++ {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "AWS_LAMBDA_RUNTIME_API="+ln.Addr().String(), "AWS_LAMBDA_FUNCTION_NAME=cold",
			"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=cold", "AWS_SECRET_ACCESS_KEY=cold", "STAGE=cold", "LOG_LEVEL=error",
			"DIAGNOSIS_QUEUE_URL=http://127.0.0.1:1/queue")
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return err
		}
		select {
		case at := <-api.answered:
			took = append(took, at.Sub(start))
			last = <-api.status
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			return fmt.Errorf("%s: no answer within 20s", bin)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	slices.Sort(took)
	fmt.Printf("%-44s %6.2f MB  start→ready over %d runs: min %6.2f ms  median %6.2f ms  (answer: %s)\n",
		bin, float64(info.Size())/(1<<20), runs, ms(took[0]), ms(took[len(took)/2]), last)
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
