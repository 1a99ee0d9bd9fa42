package main

import (
	"context"
	"os"
	"testing"
)

// The paths run end to end on the emulators (each write-back and CRM write applied once,
// checked inside the paths), and the meter sees every DynamoDB request that went out on
// the wire: a client built without the meter would make the bill short.
func TestPathsCountEveryCall(t *testing.T) {
	startEmulators(t)
	ctx := context.Background()
	for _, k := range []string{"STAGE", "LOG_LEVEL", "LOCAL_SEALING_KEY"} {
		t.Setenv(k, os.Getenv(k)) // restored after the test; newRun sets them
	}
	r, stop, err := newRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	se, err := r.syncErrors(4)
	if err != nil {
		t.Fatal(err)
	}
	check := func(pa Path, apiPerUnit float64) {
		t.Helper()
		metered, _ := pa.DynamoCalls()
		if wire := r.wire.take(); wire == 0 || float64(wire) != metered*pa.N {
			t.Errorf("%s: the meter counted %.0f DynamoDB calls, the wire carried %d", pa.Name, metered*pa.N, wire)
		}
		usd := 0.0
		for _, l := range pa.Lines(ListPrices, 5) {
			if l.Service == "DynamoDB" {
				usd += l.USD
			}
		}
		if usd <= 0 || pa.APIRequests != apiPerUnit*pa.N || pa.LogBytes <= 0 {
			t.Errorf("%s: DynamoDB $%.2f, %v API requests for %v units, %v log bytes", pa.Name, usd, pa.APIRequests, pa.N, pa.LogBytes)
		}
	}
	check(se, 2) // the ingest's post and the approve
	if len(se.Stages) != 3 || len(se.Lambdas) != 3 || se.SQSRequests == 0 {
		t.Errorf("sync error path: %d stages, %d functions, %v event source requests", len(se.Stages), len(se.Lambdas), se.SQSRequests)
	}
	fe, err := r.flowEvents(4)
	if err != nil {
		t.Fatal(err)
	}
	check(fe, 1)
}
