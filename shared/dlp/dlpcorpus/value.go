package dlpcorpus

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ValueAt returns the string (or number literal) at a path produced by the scanner, so a
// test can check what a finding's offsets cover.
func ValueAt(doc []byte, path string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	if !strings.HasPrefix(path, "$") {
		return "", fmt.Errorf("path %q does not start with $", path)
	}
	p := path[1:]
	for p != "" {
		switch p[0] {
		case '.':
			end := strings.IndexAny(p[1:], ".[")
			if end < 0 {
				end = len(p) - 1
			}
			m, ok := v.(map[string]any)
			if !ok {
				return "", fmt.Errorf("%q: not an object", path)
			}
			v = m[p[1:1+end]]
			p = p[1+end:]
		case '[':
			if strings.HasPrefix(p, `["`) {
				dec := json.NewDecoder(strings.NewReader(p[1:]))
				var key string
				if err := dec.Decode(&key); err != nil {
					return "", err
				}
				m, ok := v.(map[string]any)
				if !ok {
					return "", fmt.Errorf("%q: not an object", path)
				}
				v = m[key]
				p = p[1+int(dec.InputOffset())+1:]
				continue
			}
			end := strings.IndexByte(p, ']')
			n, err := strconv.Atoi(p[1:end])
			if err != nil {
				return "", err
			}
			a, ok := v.([]any)
			if !ok || n >= len(a) {
				return "", fmt.Errorf("%q: no element %d", path, n)
			}
			v = a[n]
			p = p[end+1:]
		default:
			return "", fmt.Errorf("%q: unexpected %q", path, p)
		}
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	}
	return "", fmt.Errorf("%q: %T is not a string or a number", path, v)
}
