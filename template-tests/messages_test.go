package templatetests

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

// synthMessage is an annotation that synthesis reports on a construct: an error, a warning
// or info.
type synthMessage struct{ level, path, text string }

func (m synthMessage) String() string { return m.path + ": " + m.text }

// stackMessages reads the synthesis messages of a stack from its app's assembly (synthesized
// once; assertions' Annotations_FromStack forces a new synthesis of the whole app on every
// call). It reads them through JSON so as not to name their type, which the CDK marks
// deprecated (moved to another package).
func stackMessages(st awscdk.Stack) ([]synthMessage, error) {
	list := awscdk.Stage_Of(st).Synth(nil).GetStackArtifact(st.ArtifactId()).Messages()
	raw, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	var ms []struct {
		Level string `json:"level"`
		ID    string `json:"id"`
		Entry struct {
			Data any `json:"data"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, err
	}
	out := make([]synthMessage, 0, len(ms))
	for _, m := range ms {
		// The level is "ERROR", "WARNING" or "INFO": jsii spells the enum by its Go names.
		out = append(out, synthMessage{level: strings.ToLower(m.Level), path: m.ID, text: fmt.Sprint(m.Entry.Data)})
	}
	return out, nil
}

// findMessages returns the messages of a level ("error", "warning", "info") whose text
// matches pattern (nil: all of them).
func findMessages(ms []synthMessage, level string, pattern *regexp.Regexp) []synthMessage {
	var out []synthMessage
	for _, m := range ms {
		if m.level == level && (pattern == nil || pattern.MatchString(m.text)) {
			out = append(out, m)
		}
	}
	return out
}

// hasMessage fails unless synthesis left a message of the level matching pattern.
func (s *synthesized) hasMessage(t *testing.T, level string, pattern *regexp.Regexp) {
	t.Helper()
	if len(findMessages(s.messages, level, pattern)) == 0 {
		t.Errorf("no %s matching %q among the messages:\n%v", level, pattern, s.messages)
	}
}
