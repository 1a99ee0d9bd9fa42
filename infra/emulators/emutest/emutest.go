// Package emutest gives integration tests AWS clients on the emulators. Main starts a
// private pair of emulators for the test binary unless AWS_ENDPOINT_URL_DYNAMODB and
// AWS_ENDPOINT_URL_SQS already point somewhere (LocalStack, a shared pair), and always
// stops what it started; MainDynamoDB starts dynalite alone for a package that never
// asks SQS (see there). Each runs a test on that pair and, at the same time, on
// moto_server, the second emulator, which is started on first use (or attached, see
// MotoServer) and stopped with the others.
package emutest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/infra/emulators"
)

// MainDynamoDB runs the tests of a package that uses DynamoDB but never SQS: it starts
// dynalite without fauxqs, whose start alone costs 0.5-0.75 CPU-s a test binary. Unless
// AWS_ENDPOINT_URL_SQS already points somewhere, it points at a stand-in in this process
// that answers every request with an error naming the cause, and a binary whose tests
// sent it anything fails after them even if each test passed: a package that comes to
// need SQS fails at once instead of reaching AWS itself or hanging, and moves to Main.
func MainDynamoDB(m *testing.M) {
	os.Exit(run(m, true))
}

// Main runs the tests of a package with emulators available.
func Main(m *testing.M) {
	os.Exit(run(m, false))
}

func run(m *testing.M, noSQS bool) (code int) {
	if noSQS && os.Getenv("AWS_ENDPOINT_URL_SQS") == "" {
		g := startNoSQS()
		defer g.Close()
		os.Setenv("AWS_ENDPOINT_URL_SQS", g.URL)
		defer func() {
			if n := g.asked.Load(); n > 0 {
				fmt.Fprintf(os.Stderr, "emutest: FAIL: tests sent %d SQS request(s), but this package's TestMain is emutest.MainDynamoDB, which starts no SQS emulator; use emutest.Main\n", n)
				code = 1
			}
		}()
	}
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" || os.Getenv("AWS_ENDPOINT_URL_SQS") == "" {
		e, err := emulators.Start(context.Background(), emulators.Options{NoSQS: noSQS})
		if err != nil {
			fmt.Fprintln(os.Stderr, "emutest:", err)
			return 1
		}
		defer e.Stop()
		defer func() {
			if err := e.Exited(); err != nil {
				fmt.Fprintln(os.Stderr, "emutest:", err)
			}
		}()
		for _, kv := range e.Env() {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
	}
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1"} {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	defer stopMoto()
	return m.Run()
}

// Config returns an AWS config that reaches the emulators through the standard
// AWS_ENDPOINT_URL_* variables Main set.
func Config(t testing.TB) aws.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Clients returns DynamoDB and SQS clients on the emulators.
func Clients(t testing.TB) (*dynamodb.Client, *sqs.Client) {
	cfg := Config(t)
	return dynamodb.NewFromConfig(cfg), sqs.NewFromConfig(cfg)
}

// Stage returns a fresh stage name, so each test's tables and queues are its own.
func Stage(t testing.TB) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:])
}
