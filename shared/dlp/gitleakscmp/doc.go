// Package gitleakscmp measures the dlp scanner against gitleaks v8.30.1: on the labelled
// corpus (TestGitleaksOnCorpus, which fails if gitleaks finds more of a secret type than
// the hand-written rules) and on the benchmark payloads (BenchmarkScanJSON, whose dlp side
// is in shared/dlp).
//
// It is a module of its own, with a replace of the product module onto ../../.., so that
// gitleaks and its ~60 indirect modules stay out of the product's go.mod: nothing the
// product ships needs them. `make test`, `make bench` and `make lint` run it; `go test
// ./...` at the repository root does not, nested modules being outside ./... there.
package gitleakscmp
