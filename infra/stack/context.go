package stack

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/syncassist/syncassist/shared/tenant"
)

// ContextFromFile reads the "context" object of a cdk.json. The CDK CLI hands that context
// (feature flags included) to the app; a program that synthesizes without the CLI, such as
// the template tests or `go run ./infra`, loads it here so it builds the same template.
func ContextFromFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if file.Context == nil {
		file.Context = map[string]any{}
	}
	return file.Context, nil
}

// ParseFlag reads an on/off context value: a JSON boolean from cdk.json, or the string a
// -c key=value flag passes ("true", "false", "1", "0"). Absent (nil or "") is off.
func ParseFlag(v any) (bool, error) {
	switch v := v.(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case string:
		if v == "" {
			return false, nil
		}
		on, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("%q: want true or false", v)
		}
		return on, nil
	default:
		return false, fmt.Errorf("%v: want true or false", v)
	}
}

// ParseFrameAncestors reads -c consoleFrameAncestors, the origins that may frame the
// console for every tenant of the stage: exact https origins, by the rule a tenant's own
// embedded.allowed_origins follow (tenant.ParseFrameOrigins, without the local stack's
// loopback http). A deployed console is never framed from a plain-http page, and nothing
// but an origin reaches its Content-Security-Policy: the CORS origin list's parser, used
// before, took http for any host and a ';' or quote inside an entry.
func ParseFrameAncestors(list string) ([]string, error) {
	return tenant.ParseFrameOrigins(list, false)
}
