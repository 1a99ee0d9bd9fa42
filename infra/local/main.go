// Command local runs the whole service on one machine: the emulators, the tables and
// queues from the blueprint, a demo tenant, the HTTP API with every route, an SQS poller
// that feeds the diagnosis worker as the Lambda event source would, and the reconcile on a
// timer. `local sample` posts a freshly signed sample sync error to a running stack;
// `local token` mints a development operator token.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := "serve"
	if len(os.Args) > 1 {
		cmd = os.Args[1]
	}
	var err error
	switch cmd {
	case "serve":
		err = serve(ctx)
	case "sample":
		err = sample(ctx, os.Args[2:])
	case "demo":
		err = demo(ctx)
	case "flows":
		err = flowsDemo(ctx)
	case "retry":
		err = retryDemo(ctx)
	case "embedded":
		err = embedded(ctx)
	case "token":
		err = tokenCommand(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (serve, sample, demo, flows, retry, embedded, token)", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}
