package dlpcorpus

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestFixturesHaveTheirShapes(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]int{
		"AWS_KEY_ID": 20, "AWS_KEY_ID_2": 20, "AWS_KEY_ID_3": 20, "AWS_SECRET": 40,
		"AWS_SECRET_2": 40, "AWS_SECRET_3": 40, "GH_TOKEN": 40, "GH_OAUTH": 40, "GOOGLE_KEY": 39,
		"SHOPIFY": 38, "NPM_TOKEN": 40, "MAILCHIMP": 37,
	} {
		if got := len(Fixtures[name]); got != want {
			t.Errorf("%s has %d characters, want %d", name, got, want)
		}
	}
}

// TestNotLinkedIntoFunctions keeps the corpus, its fake credentials and the 256 KiB
// payloads out of every Lambda binary: this is a package for tests, and a function that
// imported it would ship them.
func TestNotLinkedIntoFunctions(t *testing.T) {
	t.Parallel()
	const module = "github.com/syncassist/syncassist"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/functions/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/shared/dlp") {
		t.Fatalf("the functions do not link shared/dlp: the go list pattern is wrong (%d packages)", len(deps))
	}
	for _, test := range []string{module + "/shared/dlp/dlpcorpus", module + "/shared/dlp/dlptest"} {
		if slices.Contains(deps, test) {
			t.Errorf("a function links %s, a package for tests", test)
		}
	}
}
