package tenant_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/tenant"
)

// The model threshold is a number from 0 to 1, or empty for the default.
func TestModelBelowSettingIsAConfidence(t *testing.T) {
	for v, ok := range map[string]bool{"": true, "0": true, "0.75": true, "1": true, "1.5": false, "-0.1": false, "high": false} {
		if err := tenant.CheckSetting(tenant.KeyModelBelow, v, false); (err == nil) != ok {
			t.Errorf("%q: %v", v, err)
		}
	}
}
