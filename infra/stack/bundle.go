package stack

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// bundleSuffix names a function's code bundle beside its directory: dir/<name>.zip.
const (
	bundleSuffix = ".zip"
	bundleForm   = "1"
)

// bundleFunctions zips each dir/<name>/bootstrap into dir/<name>.zip, the file asset the
// function's Lambda deploys, and keeps a zip whose bootstrap has not changed.
//
// Why not the directory as the asset: the CDK CLI then zips every function on every
// deploy (yazl at zlib level 6 with a CRC in JavaScript, 65 bootstraps of 9 MiB: the
// rehearsal's deploy took 41 CPU-s of the CLI, 13 with these zips; 2026-12-02), though a
// commit's binaries are the same for the prod synth, the rehearsal and a real deploy. A
// .zip file asset is uploaded as it is.
//
// The bundle is what the CLI made of the directory: one entry, "bootstrap", mode 0755,
// stamped 1980-01-01 (no extended timestamp), so the same binary gives the same bytes and
// the same asset hash, and an unchanged function is not uploaded again. It is deflated
// at BestSpeed: 9 CPU-s for all 65 instead of the CLI's 25, and 11 % more bytes to upload
// (258 MB against 232 MB; compress/flate's level 2 would be 246 MB for 14 CPU-s).
func bundleFunctions(dir string, names []string) (map[string]string, error) {
	paths := make(map[string]string, len(names))
	errs := make([]error, len(names))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs[i] = bundle(filepath.Join(dir, names[i], "bootstrap"), filepath.Join(dir, names[i]+bundleSuffix))
			}
		}()
	}
	for i, name := range names {
		paths[name] = filepath.Join(dir, name+bundleSuffix)
		work <- i
	}
	close(work)
	wg.Wait()
	return paths, errors.Join(errs...)
}

// bundle writes the zip of the bootstrap at src to dst, unless dst already holds it: the
// zip's comment names the SHA-256 of the bootstrap it was made from, and the bundle's form
// (bump bundleForm when the zip's form changes, so that no zip of the old form is kept).
func bundle(src, dst string) error {
	bin, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(bin)
	comment := "syncassist bundle " + bundleForm + ", bootstrap sha256 " + hex.EncodeToString(sum[:])
	if r, err := zip.OpenReader(dst); err == nil {
		same := r.Comment == comment && len(r.File) == 1 && r.File[0].Name == "bootstrap"
		r.Close()
		if same {
			return nil
		}
	}

	var deflated bytes.Buffer
	fw, err := flate.NewWriter(&deflated, flate.BestSpeed)
	if err != nil {
		return err
	}
	if _, err := fw.Write(bin); err != nil {
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	fh := &zip.FileHeader{
		Name: "bootstrap",
		// Made by and needed to extract: version 2.0 (deflate), as CreateHeader would say.
		CreatorVersion:     20,
		ReaderVersion:      20,
		Method:             zip.Deflate,
		CRC32:              crc32.ChecksumIEEE(bin),
		CompressedSize64:   uint64(deflated.Len()),
		UncompressedSize64: uint64(len(bin)),
		// 1980-01-01 00:00 in MS-DOS form, as the CLI stamps its zips; Modified stays zero,
		// so no extended timestamp (the time of the build) is written.
		ModifiedDate: 1<<5 | 1,
	}
	fh.SetMode(0o755) // made on Unix, mode 0755: Lambda runs the bootstrap

	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	zw := zip.NewWriter(tmp)
	w, err := zw.CreateRaw(fh) // the sizes and CRC in the local header, no data descriptor
	if err == nil {
		_, err = w.Write(deflated.Bytes())
	}
	if err == nil {
		err = zw.SetComment(comment)
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("zip %s: %w", src, err)
	}
	return os.Rename(tmp.Name(), dst)
}
