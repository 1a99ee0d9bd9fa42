package templatetests

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// has asserts that some resource of a type has (at least) these properties.
//
// It asks what HasResourceProperties asks, in the words that function uses itself: a
// resource matching objectLike({Properties: props}) among the template's resources, each
// given an empty Properties if it has none. HasResourceProperties makes that amended copy of
// the whole template on every call (JSON.stringify and JSON.parse of some 600 KB in Node,
// the tests' largest single cost there); here it is made once per template. The failure
// message is the same function's.
func (s *synthesized) has(t *testing.T, typ string, props obj) {
	t.Helper()
	amended := s.withProperties.get(t)
	check(t, func() {
		amended.HasResource(jsii.String(typ), assertions.Match_ObjectLike(&map[string]any{"Properties": props}))
	})
}

// lazyTemplate is a template with an empty Properties on each resource that has none, as
// assertions' hasResourceProperties amends it, made on first use.
type lazyTemplate struct {
	text []byte // as synthesized
	doc  obj    // text as a Go value

	once     sync.Once
	template assertions.Template
	err      error
}

func (l *lazyTemplate) get(t *testing.T) assertions.Template {
	t.Helper()
	l.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				l.err = fmt.Errorf("%v", r)
			}
		}()
		raw, err := l.amended()
		if err != nil {
			l.err = err
			return
		}
		l.template = assertions.Template_FromString(jsii.String(string(raw)), nil)
	})
	if l.err != nil {
		t.Fatalf("template with every resource's Properties: %v", l.err)
	}
	return l.template
}

// amended is the template's text with an empty Properties added where a resource has none:
// the synthesized text itself when every resource has them (so Node sees the resources in
// their synthesized order, as Template_FromStack's copy has them), else the template written
// again from Go (keys sorted). The template itself stays as synthesized for other readers.
func (l *lazyTemplate) amended() ([]byte, error) {
	resources, _ := l.doc["Resources"].(obj)
	withProps := make(obj, len(resources))
	missing := false
	for id, r := range resources {
		res, ok := r.(obj)
		if _, has := res["Properties"]; has || !ok {
			withProps[id] = r
			continue
		}
		missing = true
		copied := make(obj, len(res)+1)
		for k, v := range res {
			copied[k] = v
		}
		copied["Properties"] = obj{}
		withProps[id] = copied
	}
	if !missing {
		return l.text, nil
	}
	amended := make(obj, len(l.doc))
	for k, v := range l.doc {
		amended[k] = v
	}
	amended["Resources"] = withProps
	return json.Marshal(amended)
}
