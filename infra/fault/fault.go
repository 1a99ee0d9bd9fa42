// Package fault is the fault and load suite of issue 17 §5: each scenario runs the local
// stack (the compose wiring every Lambda uses, dynalite and fauxqs, a fake host ERP over
// HTTP) on a stage of its own, injects one fault, and reports its figures: ops/s held,
// p50/p99, and the counts that are its checks — lost, doubled and leaked must be 0.
// `make fault` runs the full sizes (cmd in infra/fault/run); `make test` runs the short
// sizes as a Go test of this package. Rates and latencies are printed, never asserted.
package fault
