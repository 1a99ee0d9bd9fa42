package stack

import (
	"encoding/json"
	"fmt"
	"os"
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
