package emutest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// Emulator is one place a store's tests run: the pair Main set up (dynalite and fauxqs,
// or whatever the environment points at) or moto_server.
type Emulator struct {
	Name   string
	config func(t testing.TB) aws.Config
}

// Config returns an AWS config on this emulator.
func (e Emulator) Config(t testing.TB) aws.Config { t.Helper(); return e.config(t) }

// Clients returns DynamoDB and SQS clients on this emulator.
func (e Emulator) Clients(t testing.TB) (*dynamodb.Client, *sqs.Client) {
	cfg := e.Config(t)
	return dynamodb.NewFromConfig(cfg), sqs.NewFromConfig(cfg)
}

// Pair is the emulators Main set up, as an Emulator.
var Pair = Emulator{Name: "dynalite", config: Config}

// Moto is moto_server, started for this test binary on first use.
var Moto = Emulator{Name: "moto", config: motoConfig}

// MotoServer is the environment variable naming a moto_server already running (its
// address) for the moto half of Each, in place of one started per test binary: `make
// test-go-race` starts one for all the packages (scripts/with-moto), which saves a Python
// start-up (about 2 s of CPU) per package. Each test keeps to stages of its own, as on
// dynalite.
const MotoServer = "EMUTEST_MOTO_SERVER"

// MotoOff is the environment variable that, set to "off", skips the moto half of Each
// (for a machine without Python); `make test` never sets it.
const MotoOff = "EMUTEST_MOTO"

// Each runs body as a subtest on each emulator, "dynalite" and "moto", the two side by
// side (t.Parallel): they are different processes and each test keeps to a stage of its
// own, so a half waits on its emulator while the other works. Where the two disagree,
// DynamoDB's documentation decides, and the test names the emulator it excuses.
//
// Being parallel, the halves run after the calling test function has returned: Each is
// its last statement, what the halves share is cleaned up with t.Cleanup (not defer), and
// body does not call t.Setenv.
func Each(t *testing.T, body func(t *testing.T, e Emulator)) {
	t.Helper()
	for _, e := range []Emulator{Pair, Moto} {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			body(t, e)
		})
	}
}

var moto struct {
	once sync.Once
	srv  *emulators.Moto
	err  error
}

// motoConfig points every service at moto_server. The config is built by hand, not loaded
// from the environment, because the AWS_ENDPOINT_URL_* variables Main set for the pair
// would override its endpoint.
func motoConfig(t testing.TB) aws.Config {
	t.Helper()
	if os.Getenv(MotoOff) == "off" {
		t.Skip(MotoOff + "=off: the moto half of this test is skipped")
	}
	moto.once.Do(func() {
		if server := os.Getenv(MotoServer); server != "" {
			moto.srv, moto.err = emulators.AttachMoto(context.Background(), server)
			return
		}
		moto.srv, moto.err = emulators.StartMoto(context.Background(), emulators.MotoOptions{})
	})
	if moto.err != nil {
		t.Fatalf("moto: %v (set %s=off to skip moto on a machine without it)", moto.err, MotoOff)
	}
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(moto.srv.Endpoint),
	}
}

// stopMoto stops moto_server if a test started it.
func stopMoto() {
	if moto.srv != nil {
		moto.srv.Stop()
	}
}

// Tables names the blueprint tables of a fresh stage on this emulator and returns a
// DynamoDB client with the physical name of each table by its blueprint name: the set-up
// of every store's tests. A table is created the first time its name is asked for, so a
// test pays for the tables its store uses, not all eight (on moto a table costs two
// requests of about 10 ms each, and a contract suite sets up a stage per case).
func (e Emulator) Tables(t testing.TB) (*dynamodb.Client, func(table string) string) {
	t.Helper()
	db, _ := e.Clients(t)
	stage := Stage(t)
	var mu sync.Mutex
	created := map[string]bool{}
	return db, func(name string) string {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if !created[name] {
			if err := createTable(db, stage, name); err != nil {
				t.Fatal(err)
			}
			created[name] = true
		}
		return blueprint.PhysicalName(stage, name)
	}
}

// createTable creates the blueprint table called name under stage.
func createTable(db *dynamodb.Client, stage, name string) error {
	for _, tb := range blueprint.Tables {
		if tb.Name == name {
			return dynamostore.CreateTable(context.Background(), db, stage, tb)
		}
	}
	return fmt.Errorf("emutest: no blueprint table is called %q", name)
}
