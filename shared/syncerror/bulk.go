package syncerror

import (
	"bytes"
	"net/http"
)

// Recorder keeps what a handler called in-process answered (a bulk's single item, an auto
// rule's approve). (httptest's recorder would link a test package, and its flag, into the
// Lambda.)
type Recorder struct {
	header http.Header
	Code   int
	Body   bytes.Buffer
	wrote  bool
}

// NewRecorder is a Recorder that answers 200 until the handler says otherwise.
func NewRecorder() *Recorder { return &Recorder{header: http.Header{}, Code: http.StatusOK} }

// Header is the answer's header.
func (r *Recorder) Header() http.Header { return r.header }

// WriteHeader keeps the first status written.
func (r *Recorder) WriteHeader(code int) {
	if !r.wrote {
		r.Code, r.wrote = code, true
	}
}

// Write keeps the body.
func (r *Recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.Body.Write(b)
}
