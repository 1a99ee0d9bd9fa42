package functions_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// owners are the packages that own a slice of the product's data and rules: the features,
// and the packages that own the platform tables (governance records and the ledger,
// embedded sessions, tenants, the audit log with the AI records it serves). Each keeps its
// DynamoDB store in its own package (store_dynamo*.go, or a dynamo sub-package).
var owners = append([]string{"shared/governance", "shared/session", "shared/tenant", "shared/audit"}, features...)

// platform are the packages beneath every owner: they know no feature and own no data, so
// they link no owner. dynamostore is the DynamoDB plumbing every owner's store uses;
// identity verifies tokens and takes the tenant id rule from the composition root; eventbus
// puts neutral events on EventBridge (the guard's alerts are adapted in
// shared/platform/guarded); console serves the SPA and takes each tenant's frame origins
// through an interface (filled in shared/platform/consolesite).
var platformPkgs = []string{
	"shared/identity", "shared/dynamostore", "shared/httpapi", "shared/dlp", "shared/ai", "shared/webhook",
	"shared/hostauth", "shared/connector", "shared/sqsqueue", "shared/sealed", "shared/bounded", "shared/emf",
	"shared/netguard", "shared/retry", "shared/tenantrun", "shared/blueprint", "shared/version", "shared/awsjson",
	"shared/eventbus", "shared/console", "shared/deflate",
}

func under(pkg string, roots []string) string {
	rel := strings.TrimPrefix(pkg, module)
	for _, r := range roots {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return r
		}
	}
	return ""
}

// A platform package (or one of its sub-packages, test helpers included) links no owner.
func TestPlatformLinksNoOwner(t *testing.T) {
	all := deps(t, "../shared/...")
	seen := map[string]bool{}
	for pkg, ds := range all {
		root := under(pkg, platformPkgs)
		if root == "" {
			continue
		}
		seen[root] = true
		var linked []string
		for _, d := range ds {
			if o := under(d, owners); o != "" && !slices.Contains(linked, o) {
				linked = append(linked, o)
			}
		}
		if len(linked) > 0 {
			slices.Sort(linked)
			t.Errorf("platform package %s links %v: a platform package knows no feature (pass what it needs in from the composition root)",
				strings.TrimPrefix(pkg, module), linked)
		}
	}
	for _, p := range platformPkgs {
		if !seen[p] {
			t.Errorf("platform package %s not found: update the list", p)
		}
	}
}

// shared/dynamostore is the DynamoDB adapter only: from this module it imports the
// blueprint (for the tables it creates) and nothing else, so no feature's storage (which
// would name the feature's types) can live there.
func TestDynamostoreHoldsNoFeatureStorage(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "../shared/dynamostore").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for imp := range strings.Lines(string(out)) {
		imp = strings.TrimSpace(imp)
		if strings.HasPrefix(imp, module) && imp != module+"shared/blueprint" {
			t.Errorf("shared/dynamostore imports %s: a feature's store lives in the feature's package (store_dynamo.go)",
				strings.TrimPrefix(imp, module))
		}
	}
}

// syncErrorRooms are the rooms of the sync-error feature, lowest first, one line a floor:
// a room imports only rooms on the floors below its own (never a sibling on its floor, never
// one above), so the core (the first floor) imports none of them. A new sub-package of the
// feature gets its floor here.
var syncErrorRooms = [][]string{
	// the core: the claim row, its states, fixes, the store interfaces, the automation record
	{"shared/syncerror"},
	// the DynamoDB store; the in-memory fake and sample rows; the retries; the approval
	// policy and learning
	{"shared/syncerror/dynamo", "shared/syncerror/syncerrortest", "shared/syncerror/retries",
		"shared/syncerror/policy"},
	// the queue's reads (each row says who may approve it by the policy)
	{"shared/syncerror/queue"},
	// the decisions (they answer with the row as the queue shows it)
	{"shared/syncerror/decisions"},
	// the automation (auto-apply through the decisions' approve, the automation records'
	// order, insights)
	{"shared/syncerror/automation"},
	// ingest, the reconcile and its host poll; the diagnosis worker; the store on an emulator
	// and the stores' contract suites, for tests
	{"shared/syncerror/intake", "shared/syncerror/diagnosis", "shared/syncerror/dynamo/dynamotest",
		"shared/syncerror/syncerrortest/storecontract"},
	// the wiring: the ingest Lambda's, the API's, then the worker Lambda's and the AI adapter;
	// beside them the rooms' shared test fixture, which builds the decisions stack
	{"shared/syncerror/ingestwire"},
	{"shared/syncerror/wire"},
	{"shared/syncerror/aidiagnoser", "shared/syncerror/queuewire", roomTest},
}

// roomTest is the fixture the rooms' tests share (the decisions over the queue over the
// policy, the diagnosis worker, insights): test files import it, no product file does.
const roomTest = "shared/syncerror/roomtest"

// Inside the sync-error feature each room imports only downward (test files aside: a
// room's tests may use the contract suites and the fake).
func TestSyncErrorRoomsImportOnlyDownward(t *testing.T) {
	floor := map[string]int{}
	for i, rooms := range syncErrorRooms {
		for _, r := range rooms {
			floor[module+r] = i
		}
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../shared/syncerror/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		own, ok := floor[f[0]]
		if !ok {
			t.Errorf("%s is no room in syncErrorRooms: give it its floor", strings.TrimPrefix(f[0], module))
			continue
		}
		seen++
		for _, imp := range f[1:] {
			if to, ok := floor[imp]; ok && to >= own {
				t.Errorf("%s imports %s, on floor %d (its own is %d): a room imports only the floors below it",
					strings.TrimPrefix(f[0], module), strings.TrimPrefix(imp, module), to, own)
			}
		}
	}
	if want := len(floor); seen != want {
		t.Errorf("found %d of the %d rooms in syncErrorRooms: update the list", seen, want)
	}
}

// The rooms' shared test fixture stays out of the product: only test files import it.
func TestRoomTestIsImportedOnlyByTests(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if slices.Contains(f[1:], module+roomTest) {
			t.Errorf("%s imports %s outside its tests", strings.TrimPrefix(f[0], module), roomTest)
		}
	}
}
