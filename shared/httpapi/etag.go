package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// Revalidate gives every successful JSON read under /api/ an ETag and answers a request
// whose If-None-Match already names it with 304 and no body: a console polling a list for
// changes, or its browser revalidating, costs the handler's reads but not the transfer.
// The answer is private and must be revalidated (a read carries its caller's data), and a
// response that set its own Cache-Control (no-store on secrets) is passed through as is.
func Revalidate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		buf := &bufferedWriter{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(buf, r)
		h := w.Header()
		for k, v := range buf.header {
			h[k] = v
		}
		if buf.status != http.StatusOK || h.Get("Cache-Control") != "" || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			w.WriteHeader(buf.status)
			_, _ = w.Write(buf.body.Bytes())
			return
		}
		sum := sha256.Sum256(buf.body.Bytes())
		etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, no-cache")
		h.Add("Vary", "Authorization, X-Embedded-Context-Id")
		if matches(r.Header.Get("If-None-Match"), etag) {
			h.Del("Content-Type")
			h.Del("Content-Length")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(buf.body.Bytes())
	})
}

// matches reports whether an If-None-Match list names etag (weak or strong, or "*").
func matches(ifNoneMatch, etag string) bool {
	for _, t := range strings.Split(ifNoneMatch, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

type bufferedWriter struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}
