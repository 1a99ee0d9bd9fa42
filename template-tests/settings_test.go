package templatetests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/settings"
)

// Local connector URLs (http, loopback, private addresses) are for the local stack and the
// tests only: no deployed stage may allow them, whatever its context.
func TestNoStageAllowsLocalConnectors(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		b, err := json.Marshal(s.template.ToJSON())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), settings.EnvLocalConnectors) {
			t.Fatalf("the %s stack sets %s", s.stage, settings.EnvLocalConnectors)
		}
	})
}
