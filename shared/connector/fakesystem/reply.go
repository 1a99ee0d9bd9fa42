package fakesystem

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"
)

func writeReply(w http.ResponseWriter, r *http.Request, rep reply) {
	if rep.delay > 0 {
		// The request is already handled; the wait only delays the answer, and ends early
		// when the client has gone, so a closing test server is not held up.
		t := time.NewTimer(rep.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
	if rep.drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	if w.Header().Get("Content-Type") == "" && len(rep.body) > 0 {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.status)
	w.Write(rep.body)
}

func jsonReply(status int, v any) reply {
	body, err := json.Marshal(v)
	if err != nil {
		return reply{status: http.StatusInternalServerError, header: http.Header{}}
	}
	return reply{status: status, header: http.Header{}, body: body}
}

// decodeBody reads a JSON object body with numbers kept exact.
func decodeBody(body []byte) (map[string]any, bool) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// normalise gives fields the shape they have after a JSON round trip.
func normalise(fields map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	out, ok := decodeBody(raw)
	if !ok {
		out = map[string]any{}
	}
	return out, nil
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneMap(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	default:
		return v
	}
}
