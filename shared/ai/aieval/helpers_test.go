package aieval_test

import (
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
)

var fileN atomic.Int64

func writeFile(t *testing.T, dir, body string) string {
	t.Helper()
	f := filepath.Join(dir, "corpus"+strconv.FormatInt(fileN.Add(1), 10)+".json")
	if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}
