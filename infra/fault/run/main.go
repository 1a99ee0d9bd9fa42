// Command run is `make fault`: every scenario of the fault suite at full size (or the
// short sizes with -short), its table on stdout; the exit status is 1 when a check failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/syncassist/syncassist/infra/fault"
)

func main() {
	short := flag.Bool("short", false, "the short sizes make test uses")
	only := flag.String("run", "", "run only the scenarios whose name contains this")
	flag.Parse()
	os.Exit(run(*short, *only))
}

func run(short bool, only string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := fault.Full()
	if short {
		cfg = fault.Short()
	}
	start := time.Now()
	h, err := fault.StartHarness(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fault:", err)
		return 1
	}
	defer h.Close()
	rows := fault.RunAll(ctx, h, cfg, only, os.Stderr)
	fmt.Printf("fault suite (%s sizes), dynalite + fauxqs on loopback, %s\n\n", map[bool]string{true: "short", false: "full"}[short],
		time.Since(start).Round(time.Second))
	fault.Print(os.Stdout, rows)
	for _, r := range rows {
		if !r.Pass() {
			return 1
		}
	}
	return 0
}
