package stack

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A function's zip is the same bytes for the same bootstrap (so its asset hash is stable
// and an unchanged function is not uploaded again), holds the bootstrap as an executable,
// is kept while the bootstrap is unchanged and made again when it changes.
func TestBundleFunctions(t *testing.T) {
	dir := t.TempDir()
	bin := bytes.Repeat([]byte("\x7fELF not really a binary, but many bytes of one\n"), 5000)
	writeBootstrap := func(name string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "bootstrap"), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeBootstrap("a", bin)
	writeBootstrap("b", bin)
	paths, err := bundleFunctions(dir, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "a.zip"); paths["a"] != want {
		t.Fatalf("a's bundle at %s, want %s", paths["a"], want)
	}
	a, _ := os.ReadFile(paths["a"])
	b, _ := os.ReadFile(paths["b"])
	if !bytes.Equal(a, b) {
		t.Fatal("two zips of the same bootstrap differ")
	}

	r, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.File) != 1 || r.File[0].Name != "bootstrap" {
		t.Fatalf("entries %v, want bootstrap alone", r.File)
	}
	f := r.File[0]
	if mode := f.Mode(); mode != 0o755 {
		t.Errorf("bootstrap's mode %v, want -rwxr-xr-x", mode)
	}
	if f.Method != zip.Deflate || f.Flags&0x8 != 0 {
		t.Errorf("method %d flags %#x, want deflate without a data descriptor", f.Method, f.Flags)
	}
	if !f.Modified.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("stamped %v, want 1980-01-01", f.Modified)
	}
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc) // checks the CRC too
	rc.Close()
	if err != nil || !bytes.Equal(got, bin) {
		t.Fatalf("unzipped %d bytes (%v), want the bootstrap's %d", len(got), err, len(bin))
	}

	// Kept: a second synthesis finds the zip of the same bootstrap and leaves it.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(paths["a"], old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := bundleFunctions(dir, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(paths["a"]); !st.ModTime().Equal(old) {
		t.Error("the zip of an unchanged bootstrap was written again")
	}

	// Made again: a changed bootstrap gets a new zip.
	writeBootstrap("a", append(bin, "changed"...))
	if _, err := bundleFunctions(dir, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if a2, _ := os.ReadFile(paths["a"]); bytes.Equal(a2, a) {
		t.Error("the zip of a changed bootstrap was kept")
	}

	// A missing bootstrap is an error naming it, not an empty zip.
	if _, err := bundleFunctions(dir, []string{"missing"}); err == nil {
		t.Error("no error for a function without a bootstrap")
	}
}
