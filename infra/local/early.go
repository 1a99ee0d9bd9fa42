package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// earlyServer serves on the stack's port from the moment it is bound: 503 "starting" until
// the stack's handler is set, so a client probing the port (the tests wait on /local/ready)
// gets an answer at once, never a connection left in the accept backlog while the
// emulators and the demo tenant come up.
type earlyServer struct {
	handler atomic.Pointer[http.Handler]
	srv     *http.Server
	done    chan struct{}
}

func serveEarly(ln net.Listener, log *slog.Logger) *earlyServer {
	e := &earlyServer{done: make(chan struct{})}
	e.srv = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(e.done)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server", "error", err)
		}
	}()
	return e
}

func (e *earlyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := e.handler.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	w.Header().Set("Retry-After", "1")
	http.Error(w, "starting", http.StatusServiceUnavailable)
}

// set makes h the stack's handler.
func (e *earlyServer) set(h http.Handler) { e.handler.Store(&h) }

// stop shuts the server down, waiting up to 5 seconds for requests in flight.
func (e *earlyServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.srv.Shutdown(ctx)
	<-e.done
}
