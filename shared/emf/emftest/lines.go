package emftest

import (
	"bytes"
	"strings"
	"sync"
)

// Lines is an io.Writer collecting EMF lines, safe for concurrent use: a guard's writes
// run side by side, and a Batch's deadline flush writes from its timer's goroutine.
type Lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// All are the lines written, without their newlines; none when nothing was.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(l.buf.String(), "\n"), "\n")
}
