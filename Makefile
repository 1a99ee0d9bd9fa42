# Everything a developer or CI does goes through these targets. Node tools (emulators, CDK
# CLI) come from package-lock.json via npm ci; Go tools are pinned by version here.

SHELL := /bin/bash
GO ?= go
STAGE ?= dev
FUNCTIONS := $(notdir $(patsubst %/,%,$(wildcard functions/*/)))
BUILD_DIR := build/functions
# The functions' build tags: lambda.norpc leaves out the Go 1.x runtime's RPC server (the
# provided.al2023 runtime speaks the Runtime API over HTTP), and nethttpomithttp2 leaves
# HTTP/2 out of net/http (0.31-0.44 MiB of every function; 2026-11-30): every endpoint a
# function calls (the AWS services' APIs, the five vendors' REST APIs, the Lambda Runtime
# API) answers HTTP/1.1, and a function makes its calls one after another, so HTTP/2's
# multiplexing buys it nothing.
FUNCTION_TAGS := lambda.norpc,nethttpomithttp2
# The version stamp of every binary (shared/version): git describe of the newest commit that
# changed what the functions are built from (CODE_PATHS: the function binaries import only
# functions/ and shared/, embeds included), and that commit's time; on a tree whose CODE_PATHS
# differ from HEAD, -dirty and the build time. Then a commit's binaries are the same whenever
# they are built, and a second make build finds them up to date instead of linking all of them
# again (CI built them three times: the size test, the prod synth, the rehearsal); and a commit
# that changed none of CODE_PATHS (docs, the console's tests, the CDK app) links no function
# again (about 80 CPU-s of each make test at a new commit) nor changes one in a deploy.
CODE_PATHS  := functions shared go.mod go.sum Makefile
CODE_COMMIT := $(shell git log -1 --format=%H -- $(CODE_PATHS) 2>/dev/null)
VERSION    := $(if $(CODE_COMMIT),$(shell git describe --tags --always $(CODE_COMMIT))$(shell git diff --quiet HEAD -- $(CODE_PATHS) || echo -dirty),dev)
BUILD_TIME := $(strip $(if $(filter %-dirty dev,$(VERSION)),$(shell date -u +%Y-%m-%dT%H:%M:%SZ),\
	$(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ $(CODE_COMMIT))))
STAMP      := -X github.com/syncassist/syncassist/shared/version.Version=$(VERSION) -X github.com/syncassist/syncassist/shared/version.BuildTime=$(BUILD_TIME)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.7.0
# gitleaks, used only to measure the DLP scanner against, lives in a module of its own.
GITLEAKS_CMP := shared/dlp/gitleakscmp
# -ldflags=-w: test binaries without DWARF (no debugger reads them; stack traces and the race
# detector's reports use the symbol table), a third less CPU per link: 1.9 → 1.35 CPU-s for
# one race-built test binary, and make test links about a hundred.
GOTEST_FLAGS ?= -count=1 -ldflags=-w
# -trimpath for every go command make runs: without it Go's build cache keys each compile on
# the package's directory, so a clone at another path compiled the whole module again though
# the cache held the same commit (the race lane's test build in a second clone: 87 CPU-s
# without, 47 with; 2026-11-30). Nothing in the module reads its source paths at run time.
# -toolexec=scripts/linkcache: Go's build cache keeps compiled packages, not linked programs,
# so each make test linked its ~290 test binaries and functions again (250 of a warm run's
# 1,500 CPU-s, where compiling took 1); linkcache keeps them under the link's action ID, the
# key go itself trusts to call a program up to date (its header says more).
# -buildvcs=false: go stamps each main package with the commit it is built at, so every new
# commit compiled every main package again in each variant and linked it again (a commit
# with no Go change: lint 21 → 86 CPU-s, 157 compiles; the functions' build 67 compiles).
# Nothing reads that stamp (runtime/debug's vcs settings); the functions carry their version
# from STAMP below, which is all a commit changes in them.
export GOFLAGS := $(strip $(GOFLAGS) -trimpath -buildvcs=false -toolexec=$(CURDIR)/scripts/linkcache)
# Fuzz targets as package:Func. make fuzz runs each for FUZZTIME; test-go runs their corpora,
# and searches each for new inputs for CI_FUZZTIME (1000 runs each under CI=true, off locally).
FUZZTIME ?= 60s
# A count, not a duration: a duration's deadline races the workers in Go 1.26's fuzz
# coordinator and fails a target with a bare "context deadline exceeded" on a loaded machine
# (go.dev/issue/75804, fixed in Go 1.27; seen in CI here on FuzzScanText at 3s).
CI_FUZZTIME ?= $(if $(CI),1000x,)
# CI's search starts from the committed seeds in a corpus of its own (FUZZCACHE, under build/),
# not from the build cache's: -fuzztime counts the replay of that corpus, and on a machine
# whose cache had grown past 1000 inputs (FuzzOpenAPI 1,032, FuzzScanJSON 979 here on
# 2026-12-01) CI's 1000 runs replayed them and searched nothing. From the seeds: FuzzOpenAPI
# 1000 new inputs in 26 CPU-s (199 of them new coverage), where the replay took 55. The flag
# is the one go test itself passes the cache's directory with (testing's -test.fuzzcachedir).
CI_FUZZCACHE := $(CURDIR)/build/fuzzcache
# The API fuzz walks 61 operations in three roles: a minute covers little of it, so make fuzz
# gives it FUZZTIME_API unless FUZZTIME is set on the command line (as CI's brief search does).
FUZZTIME_API ?= 5m
FUZZ_TARGETS := shared/webhook:FuzzVerify shared/dlp:FuzzScanJSON shared/dlp:FuzzScanText \
	shared/syncerror:FuzzParseRecord shared/governance:FuzzCanonicalJSON shared/governance:FuzzManifestValidate \
	shared/finance:FuzzDecodeCursor shared/dynamostore:FuzzDecodeTimedCursor shared/connector:FuzzOffsetCursor shared/connector:FuzzQueryBuilders \
	shared/flow:FuzzFlowFilter shared/settings:FuzzCheckBaseURL shared/toolcatalog:FuzzMCPRequest infra/compose:FuzzOpenAPI
# AWS's own tools, from PyPI (Python 3.10+): cfn-lint lints the synthesized templates and
# moto_server is the second emulator of the store contract suites and the deploy rehearsal.
CFN_LINT_VERSION := 1.51.0
MOTO_VERSION     := 5.2.1
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: test-go-race test-templates test-go-extra aws-tools deploy-rehearsal fuzz help run sample demo demo-flows demo-retry embedded reconcile token tenantctl test synth-prod test-go test-console test-browser test-suitescript console chromium screenshots openapi-lint build synth lint eval-diagnoser bench cost fault clean deps version

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

version: ## print the version stamp a build of this tree carries (GET /api/version answers it)
	@echo "$(VERSION) $(BUILD_TIME)"

deps: node_modules/.package-lock.json ## install the pinned Node tools (npm ci) and Go modules
	@$(GO) mod download

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

run: deps console ## run the whole service locally: console and API on http://127.0.0.1:$PORT/ (default 3000)
	$(GO) run ./infra/local

sample: ## sign and post a sample sync error to the running local stack (ERROR_ID=... to repeat one)
	$(GO) run ./infra/local sample $(if $(ERROR_ID),-error-id $(ERROR_ID)) $(ARGS)

demo: ## walk the whole flow against the running local stack: sync error -> diagnosis -> approve -> ERP write-back, then the retries (as demo-retry)
	$(GO) run ./infra/local demo

demo-flows: ## the cross-system story against the running local stack: ERP -> CRM and shipping, an ownership rejection, a loop broken, a failed write triaged and fixed
	$(GO) run ./infra/local flows

demo-retry: ## retries against the running local stack: a host-reported connection error re-run by the host ERP once the fake ERP is back; a failed flow run re-run by the flow; both resolved, the error kept
	$(GO) run ./infra/local retry

embedded: ## open a demo embedded session and a sync-errors context on the running local stack
	$(GO) run ./infra/local embedded

reconcile: ## run the backstops of the running local stack now (the reconcile, the flow redrive and poll, the lease sweep)
	@curl -s -X POST http://127.0.0.1:$(or $(PORT),3000)/local/reconcile; echo

token: ## print a development token: make token ROLE=operator|approver|admin [TENANT=demo]
	@$(GO) run ./infra/local token -role $(or $(ROLE),operator) -tenant $(or $(TENANT),demo)

tenantctl: ## onboarding command against the running local stack: make tenantctl ARGS="create acme"
	@set -a; [ -f .local/local.env ] && . .local/local.env; set +a; $(GO) run ./infra/tenantctl $(ARGS)

# make test runs its stages in three lanes side by side (scripts/test-run): the stages of a
# lane one after another, each with its log in build/test-logs/ (printed whole when it
# fails), and ends with a table of each stage's wall and CPU time (also in
# build/test-stages.txt). The lanes share nothing but the machine: the race-detector run;
# the template tests, the OpenAPI lint, the NetSuite script and the function binaries'
# sizes; the console (its bundle, which the browser tests serve), the browser tests, then
# the fuzz search (the browser lane ended first in CI on 2026-11-30, 256 s before the race
# lane, and the search no longer waits for the race run). The CPU-bound stages run at a
# lower priority ("nice" before them: TEST_NICE), so the browser tests' stacks answer in time.
# CI (.ci/run) adds its steps after the tests to the two lanes that end before the race
# lane (CI_TEMPLATE_STAGES, CI_BROWSER_STAGES), where they use the cores those lanes leave
# idle instead of starting after make test (CI at c41c543: 840 s, from 983 s with the steps
# after it). The prod synth and the rehearsal share build/functions: one lane.
CI_TEMPLATE_STAGES ?=
CI_BROWSER_STAGES ?=
TEST_LANES := "nice test-go-race" "nice test-templates openapi-lint test-suitescript test-sizes $(CI_TEMPLATE_STAGES)" \
	"test-console test-browser nice test-go-extra $(CI_BROWSER_STAGES)"
TEST_NICE ?= 5
test: deps aws-tools chromium ## everything: Go (unit, emulators, CDK templates), console type-check and bundle, OpenAPI lint, browser tests, the NetSuite script
	@AWS_TOOLS_CHECKED=1 TEST_NICE=$(TEST_NICE) MAKE=$(MAKE) scripts/test-run $(TEST_LANES)

# The machine image ships both at these versions; anywhere else pip installs the pins.
# Checking costs about 3 CPU-s (two Python start-ups importing each tool): make test checks
# once, before its lanes, and tells the lanes' makes so (AWS_TOOLS_CHECKED) rather than have
# the race and template lanes check again as they start.
aws-tools: ## check (or pip install) the pinned cfn-lint and moto_server
	@[ -n "$$AWS_TOOLS_CHECKED" ] || cfn-lint --version 2>/dev/null | grep -qx 'cfn-lint $(CFN_LINT_VERSION)' \
		|| python3 -m pip install -q 'cfn-lint==$(CFN_LINT_VERSION)'
	@[ -n "$$AWS_TOOLS_CHECKED" ] || { command -v moto_server >/dev/null && python3 -c 'import moto, sys; sys.exit(moto.__version__ != "$(MOTO_VERSION)")'; } 2>/dev/null \
		|| python3 -m pip install -q 'moto[server]==$(MOTO_VERSION)'

test-go: test-go-race test-templates test-go-extra ## Go unit and integration tests (DynamoDB + SQS emulators), the short fault suite, and CDK template tests

# One moto_server for every package's contract suites (scripts/with-moto), not one each.
# The packages are every one with tests but the CDK's (scripts/go-packages race), the
# longest first: go test starts packages in the order named, so neither the fault suite nor
# the local stack's starts last while the other lanes have ended.
# The fault suite checks counts, never rates, so a slow machine must not fail it; beside two
# busy loops (nice 0 against the lane's 5) it outlived go test's default 10 minutes while
# still progressing (CI at db02dcc: in partition-throttle's checks at 600 s), so 30 minutes,
# as the template tests have.
# GORACE atexit_sleep_ms: a race-built binary sleeps a second as it exits (the default, so
# goroutines still running can report a race), and go test runs 73 of them, a slot of -p
# each: about 35 s of the lane's wall time, in its tail where it runs alone (measured
# 2026-12-03: shared/blueprint's binary 1.06 s at the default, 0.07 s at 0). 100 ms keeps a
# window for the goroutines a test leaves behind; a GORACE of the caller's own is kept.
RACE_ENV := GORACE="$${GORACE-atexit_sleep_ms=100}"
test-go-race: deps aws-tools ## the Go packages under the race detector (unit, emulators, local stack, short fault suite)
	$(RACE_ENV) scripts/with-moto $(GO) test $(GOTEST_FLAGS) -race -timeout 30m $$(GO=$(GO) scripts/go-packages race)

# The template tests synthesize each stack once and lint three templates with cfn-lint; on a
# loaded machine that outlives go test's default 10-minute timeout (measured: 10 min+ at a
# load of 28 on 2 cores).
test-templates: deps aws-tools ## the CDK template tests (synth, cdk-nag, cfn-lint)
	$(GO) test $(GOTEST_FLAGS) -timeout 30m ./template-tests/... ./infra/stack/...

test-go-extra: deps ## the forgery flood, the gitleaks comparison, and (under CI) a brief search of each fuzz target
	$(GO) test $(GOTEST_FLAGS) -run 'TestForgeryFlood' ./shared/hostauth/
	cd $(GITLEAKS_CMP) && $(GO) test $(GOTEST_FLAGS) ./...
	@# go test above runs every fuzz target on its committed corpus. CI also searches each
	@# briefly: a finding is a real bug, saved under the package's testdata/fuzz to commit as
	@# a seed with its fix. make fuzz is the long search (run it after touching a parser).
	@if [ -n "$(CI_FUZZTIME)" ]; then rm -rf $(CI_FUZZCACHE); \
		$(MAKE) --no-print-directory fuzz FUZZTIME=$(CI_FUZZTIME) FUZZCACHE=$(CI_FUZZCACHE); fi

fuzz: ## run every fuzz target for FUZZTIME each (default 60s; the API fuzz FUZZTIME_API, 5m); a failing input is saved under the package's testdata/fuzz; FUZZCACHE=dir keeps the inputs found there instead of in Go's build cache
	@# Each new input that widens coverage is minimized first, for up to 60 s by default, and
	@# the search stands still meanwhile (CanonicalJSON's execs stalled for 40 s of 45): 10 s.
	@# FUZZCACHE is made absolute: the test binary runs in its package's directory, where a
	@# relative one left a build/ directory in each package, untracked.
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; ft=$(FUZZTIME); \
		if [ "$$fn" = FuzzOpenAPI ] && [ "$(origin FUZZTIME)" = file ]; then ft=$(FUZZTIME_API); fi; \
		echo "fuzz $$fn ($$pkg, $$ft)"; \
		$(GO) test -ldflags=-w -run '^$$' -fuzz "^$$fn\$$" -fuzztime $$ft -fuzzminimizetime 10s ./$$pkg \
			$(if $(FUZZCACHE),-args -test.fuzzcachedir=$(abspath $(FUZZCACHE))/$$pkg); done

console: deps ## build the console (TypeScript API types from the OpenAPI document, then the esbuild bundle) into shared/console/dist
	@npm run --silent console:types
	@npm run --silent console:build

# The bundle and the generated API types are committed, so `go build` works on a fresh
# clone; CI rebuilds them and fails when what is committed differs from the sources.
test-console: console ## type-check the console and its browser tests; in CI, fail when the committed bundle is stale
	@npm run --silent console:check
	@npx --no-install tsc -p console/e2e/tsconfig.json --noEmit
	@if [ "$$CI" = "true" ] && ! git diff --quiet -- shared/console/dist console/src/api/schema.d.ts; then \
		git status --short -- shared/console/dist console/src/api/schema.d.ts; \
		echo "the committed console bundle or API types are stale: run make console and commit"; exit 1; fi

openapi-lint: deps ## lint the OpenAPI document (Redocly, offline)
	@REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npm run --silent openapi:lint

# The script runs under Node with stand-ins for the N/* modules against a real local stack
# (netsuite/test/stack.js starts it on a free port and stops it, emulators included).
test-suitescript: deps ## the NetSuite scripts: static checks, the exact-number check, the user-event script's posts to the ingest of a local stack, the retry script
	node --test netsuite/test/static.test.js netsuite/test/exact_json.test.js netsuite/test/ingest.test.js netsuite/test/retry.test.js

# Chromium's headless shell: the same Blink and V8 as the full browser without its window
# system; measured on three specs (32 tests, 2026-11-30), 69 CPU-s and 84 s against 101 and
# 119 s with the full browser in headless mode. CHROMIUM=/usr/bin/chromium runs the full one;
# the Debian package installed is the file's name.
CHROMIUM ?= /usr/bin/chromium-headless-shell
chromium: ## install Debian's Chromium headless shell for the browser tests when it is missing (Playwright cannot download its own here)
	@if ! [ -x "$(CHROMIUM)" ]; then \
		echo "installing $(notdir $(CHROMIUM)) (Debian package)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		{ $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(notdir $(CHROMIUM)) >/dev/null; } \
		|| echo "could not install $(notdir $(CHROMIUM)); the browser tests use $(CHROMIUM_FULL) if it is there"; fi

# The browser the tests launch: CHROMIUM, else (its package could not be installed) the full one.
CHROMIUM_FULL := /usr/bin/chromium
browser = $$(if [ -x "$(CHROMIUM)" ]; then echo "$(CHROMIUM)"; else echo "$(CHROMIUM_FULL)"; fi)

test-browser: deps console chromium ## Playwright + axe in headless Chromium against a real local stack on a free port
	SYNCASSIST_API_CHECK=1 CHROMIUM=$(browser) npm run --silent browser-test

screenshots: deps console chromium ## write a PNG of each console panel to docs/screenshots/
	SCREENSHOTS=1 CHROMIUM=$(browser) npm run --silent browser-test -- screenshots

# One go build for every function (the packages loaded once, the links side by side) into
# build/functions/.bin, each then linked as its function's bootstrap; go build skips a
# binary that is up to date.
build: ## one linux/arm64 bootstrap per function in build/functions/<name>/
	@mkdir -p $(BUILD_DIR)/.bin
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -tags $(FUNCTION_TAGS) -ldflags='-s -w $(STAMP)' \
		-o $(BUILD_DIR)/.bin/ $(addprefix ./functions/,$(FUNCTIONS))
	@for f in $(FUNCTIONS); do mkdir -p $(BUILD_DIR)/$$f && ln -f $(BUILD_DIR)/.bin/$$f $(BUILD_DIR)/$$f/bootstrap || exit 1; done

# The size test reads the bootstraps make build wrote, the ones a deploy ships.
test-sizes: build ## every function's linux/arm64 bootstrap within its size limit (functions/size_test.go: 10 MiB, the ingest 8 MiB)
	FUNCTION_BINARIES=$(BUILD_DIR) $(GO) test -count=1 -run TestFunctionBinariesWithinTheirLimits -v ./functions/

# The pinned CLI from node_modules/.bin, as npx --no-install finds it, without npx's own
# start (0.65 CPU-s a call, measured 2026-12-01).
synth: deps build ## synthesize the CloudFormation template offline with the pinned CDK CLI (STAGE=dev|prod)
	node_modules/.bin/cdk synth -q -a 'go run ./infra' -c stage=$(STAGE) -c functionsDir=$(BUILD_DIR)
	@echo "template: cdk.out/SyncAssist-$(STAGE).template.json"

synth-prod: ## make synth STAGE=prod (a stage of CI's lane)
	@$(MAKE) --no-print-directory synth STAGE=prod

eval-diagnoser: ## measure the diagnoser on shared/ai/testdata (accuracy, confusion, precision/recall, calibration); OPENAI_BASE_URL=... AI_MODEL=... runs a model server instead; EVAL_ARGS="-v file.json"
	@$(GO) run ./infra/evaldiagnoser $(EVAL_ARGS)

# The real CDK CLI against moto_server: what moto cannot deploy or check is listed in the
# README ("Deploy rehearsal on moto").
deploy-rehearsal: deps aws-tools build ## cdk bootstrap and deploy of the dev stage to moto_server, then check what was deployed against the template
	$(GO) run ./infra/rehearsal -functions $(BUILD_DIR)

lint: ## gofmt, go vet (under -race, as the tests build), staticcheck and a go mod tidy diff
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needs to run on:"; echo "$$out"; exit 1; fi
	@# -race: vet reads the export data the race lane compiled instead of compiling every
	@# package and its tests a second time (./shared/... after a race build: 22 CPU-s with
	@# -race, 116 without; 2026-11-30); the CDK's packages as the template lane compiled them.
	$(GO) vet -race $$(GO=$(GO) scripts/go-packages nocdk)
	$(GO) vet $$(GO=$(GO) scripts/go-packages cdk)
	@# staticcheck loads its packages through go list -export, so it too reads the race build
	@# (GOFLAGS for staticcheck's go list, not for building staticcheck itself): without it,
	@# a run after a change compiled the module once more only for staticcheck (CI at
	@# 5686756: 59 CPU-s of compile in lint's minute, then staticcheck's own 21).
	$(GO) run -exec "env 'GOFLAGS=$(GOFLAGS) -race'" $(STATICCHECK) ./...
	cd $(GITLEAKS_CMP) && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./...
	@cp go.mod /tmp/go.mod.lint && cp go.sum /tmp/go.sum.lint; \
		$(GO) mod tidy; \
		if ! git diff --quiet -- go.mod go.sum; then git diff -- go.mod go.sum; \
			cp /tmp/go.mod.lint go.mod; cp /tmp/go.sum.lint go.sum; echo "go mod tidy changes go.mod/go.sum"; exit 1; fi
	@cd $(GITLEAKS_CMP) && $(GO) mod tidy && if ! git diff --quiet -- go.mod go.sum; then git diff -- go.mod go.sum; \
		git checkout -- go.mod go.sum; echo "go mod tidy changes $(GITLEAKS_CMP)/go.mod"; exit 1; fi

bench: deps build ## Go benchmarks, end-to-end ingest against the emulators, binary sizes
	$(GO) test -run '^$$' -bench . -benchmem ./shared/...
	cd $(GITLEAKS_CMP) && $(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./infra/bench -c 1 -n 1000
	$(GO) run ./infra/bench -c 8
	@for f in mcp ingest audit-list console; do CGO_ENABLED=0 $(GO) build -tags $(FUNCTION_TAGS) -ldflags='-s -w' -o build/host/$$f ./functions/$$f || exit 1; done
	$(GO) run ./infra/bench/coldstart -runs 25 build/host/mcp build/host/ingest build/host/audit-list build/host/console
	@echo "bootstrap sizes (linux/arm64):"; for f in $(FUNCTIONS); do ls -l $(BUILD_DIR)/$$f/bootstrap | awk -v f=$$f '{printf "  %-32s %6.2f MB\n", f, $$5/1048576}'; done

# Prices are in infra/cost/prices.go, dated; COST_ARGS="-n 500 -call-ms 8" for more
# samples or another assumed in-region latency per AWS call.
cost: deps ## the AWS cost per million sync errors and flow events and per tenant-month, from calls counted on the emulators, with the breakdown
	@$(GO) run ./infra/cost $(COST_ARGS)

fault: deps ## fault and load suite on the emulators: burst, DynamoDB/SQS emulator kills, redelivery, crash after ERP write, ERP 429/5xx (FAULT_ARGS=-short, -run NAME)
	$(GO) run ./infra/fault/run $(FAULT_ARGS)

clean: ## remove build output, cdk.out and local state
	rm -rf build cdk.out .local
