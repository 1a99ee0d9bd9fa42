// Package apidoc holds the API's public contract: one OpenAPI 3.1 document describing every
// route of the blueprint, served at GET /api/openapi.json without authentication.
package apidoc

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.json
var document []byte

// Document returns the OpenAPI document (JSON). Callers must not modify it.
func Document() []byte { return document }

// Handler serves the document. It is public: it names routes and shapes, never data.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(document)
		}
	})
}
