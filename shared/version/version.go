// Package version is the build's stamp. make build sets it with the linker (git describe of
// the newest commit that changed the code built, and that commit's time), every function
// logs it at start, and GET /api/version answers it, so an ops engineer can tell which code
// a stage runs. It holds nothing secret.
package version

import (
	"encoding/json"
	"net/http"
	"runtime"
)

// Set by make build: -ldflags "-X github.com/syncassist/syncassist/shared/version.Version=…".
var (
	// Version is git describe of the newest commit that changed the code built (the
	// Makefile's CODE_PATHS; "-dirty" when the tree differs there), "dev" when built
	// without make.
	Version = "dev"
	// BuildTime is that commit's time, or when it was built on a dirty tree (RFC 3339, UTC).
	BuildTime = ""
)

// Info is the answer of GET /api/version.
type Info struct {
	Version   string `json:"version"`
	BuildTime string `json:"buildTime,omitempty"`
	Go        string `json:"go"`
}

// Get returns this binary's stamp.
func Get() Info { return Info{Version: Version, BuildTime: BuildTime, Go: runtime.Version()} }

// Handler answers GET /api/version with Get, uncached so a deploy shows at once.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		_ = json.NewEncoder(w).Encode(Get())
	})
}
