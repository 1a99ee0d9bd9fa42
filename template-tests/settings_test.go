package templatetests

import (
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/settings"
)

// Local connector URLs (http, loopback, private addresses) are for the local stack and the
// tests only: no deployed stage may allow them, whatever its context.
func TestNoStageAllowsLocalConnectors(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		if strings.Contains(s.templateJSON(t), settings.EnvLocalConnectors) {
			t.Fatalf("the %s stack sets %s", s.stage, settings.EnvLocalConnectors)
		}
	})
}
