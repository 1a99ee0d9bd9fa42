package connector_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// checkNetSuiteAnswer holds an answer to a fixture's: its status, headers and body shape;
// an error's type URL and o:errorCode must be the documented values.
func checkNetSuiteAnswer(t *testing.T, f fixture, resp *http.Response) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != f.Response.Status {
		t.Errorf("%s: status %d, NetSuite answers %d (%s)", f.name, resp.StatusCode, f.Response.Status, f.Source)
		return
	}
	for k, v := range f.Response.Headers {
		if got := resp.Header.Get(k); got == "" || k == "Content-Type" && !strings.HasPrefix(got, strings.Split(v, ";")[0]) {
			t.Errorf("%s: %s = %q, NetSuite sends %q (%s)", f.name, k, got, v, f.Source)
		}
	}
	if len(f.Response.Body) == 0 {
		if len(body) != 0 {
			t.Errorf("%s: a body where NetSuite sends none: %s", f.name, body)
		}
		return
	}
	var want, got any
	json.Unmarshal(f.Response.Body, &want)
	if err := json.Unmarshal(body, &got); err != nil {
		t.Errorf("%s: the fake's body is not JSON: %s", f.name, body)
		return
	}
	if at, ok := nsSameShape(want, got, "$"); !ok {
		t.Errorf("%s: the fake's body differs at %s from NetSuite's (%s):\n got %s", f.name, at, f.Source, body)
	}
}

// nsOptionalKeys are in an example where the situation has them: o:errorPath names the
// invalid value of a body, when there is one.
var nsOptionalKeys = map[string]bool{"o:errorPath": true}

// nsValueKeys are compared by value: an error's meaning is its code, and Oracle's type URL
// is part of the documented body (a JSON Schema's "type" is a property's, compared as shape).
var nsValueKeys = map[string]bool{"o:errorCode": true, "type": true, "status": true}

func nsSameShape(want, got any, at string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return at, false
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range w {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			gv, present := g[k]
			if !present && nsOptionalKeys[k] {
				continue
			}
			if !present || nsValueKeys[k] && w[k] != gv && (k != "type" || isURL(w[k])) {
				return at + "." + k, false
			}
			if k == "properties" {
				// A schema's properties are named by the record type: each is held to the
				// shape of the example's properties.
				if p, ok := nsSameProperties(w[k], gv, at+"."+k); !ok {
					return p, false
				}
				continue
			}
			if p, ok := nsSameShape(w[k], gv, at+"."+k); !ok {
				return p, false
			}
		}
		// A sublist shown as links only must not carry its lines.
		if _, lines := w["items"]; !lines && g["items"] != nil && w["links"] != nil {
			return at + ".items", false
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return at, false
		}
		if len(w) == 0 || len(g) == 0 {
			return "", true
		}
		return nsSameShape(w[0], g[0], at+"[0]")
	default:
		if (want == nil) != (got == nil) {
			return at, false
		}
		if _, isNum := want.(float64); isNum {
			_, ok := got.(float64)
			return at, ok
		}
		if _, isStr := want.(string); isStr {
			_, ok := got.(string)
			return at, ok
		}
		return "", true
	}
}

func nsSameProperties(want, got any, at string) (string, bool) {
	w, _ := want.(map[string]any)
	g, ok := got.(map[string]any)
	if !ok || len(g) == 0 {
		return at, false
	}
	var example map[string]any
	for _, v := range w {
		example, _ = v.(map[string]any)
	}
	for name, v := range g {
		shape := map[string]any{"title": example["title"], "type": example["type"]}
		if p, ok := nsSameShape(shape, v, at+"."+name); !ok {
			return p, false
		}
	}
	return "", true
}

func isURL(v any) bool {
	s, _ := v.(string)
	return strings.HasPrefix(s, "https://")
}
