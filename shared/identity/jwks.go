package identity

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"
)

const (
	// kidRefetchInterval bounds refetches caused by unknown key ids: a flood of tokens
	// with invented kids costs the issuer at most one request per interval.
	kidRefetchInterval = 30 * time.Second
	// fetchBackoff is how long a failed fetch is not retried; meanwhile the cached set is
	// used, and no request waits on an issuer that is known to be failing.
	fetchBackoff = 5 * time.Second
	// fetchTimeout bounds one fetch, so a hanging issuer delays a request by at most this.
	fetchTimeout = 5 * time.Second
	// maxJWKSBytes bounds the body read from the issuer.
	maxJWKSBytes = 1 << 20
	// minRSABits refuses keys too weak to trust for signatures.
	minRSABits = 2048
)

// verificationKey is one usable key of the issuer's set, with the only alg it verifies.
type verificationKey struct {
	alg string
	pub any
}

// keySet is the cached JWKS. One fetch is in flight at a time and every caller that needs
// it waits on that one; callers that hold a usable (if stale) key do not wait at all.
type keySet struct {
	url    string
	client *http.Client
	ttl    time.Duration
	now    func() time.Time

	mu        sync.Mutex
	keys      map[string]verificationKey // nil until the first successful fetch
	fetchedAt time.Time
	retryAt   time.Time // no fetch for staleness before this, after a failure
	lastErr   error
	kidFetch  time.Time // the last fetch caused by an unknown kid
	inflight  *fetchCall
}

type fetchCall struct {
	done chan struct{}
	err  error
}

func unavailable(err error) error {
	if err == nil {
		return ErrJWKSUnavailable
	}
	return fmt.Errorf("%w: %w", ErrJWKSUnavailable, err)
}

var errUnknownKey = invalid("no key of the issuer has this key id")

// key returns the key kid names, fetching the set when it is missing or stale, or once
// (rate-limited) when kid is unknown, as after a rotation at the issuer.
func (s *keySet) key(ctx context.Context, kid string) (verificationKey, error) {
	s.mu.Lock()
	now := s.now()
	k, found := s.keys[kid]
	fresh := s.keys != nil && now.Sub(s.fetchedAt) < s.ttl
	if found && fresh {
		s.mu.Unlock()
		return k, nil
	}
	call := s.inflight
	switch {
	case call != nil && found:
		// A refresh is under way; the key we have was good a moment ago.
		s.mu.Unlock()
		return k, nil
	case call != nil:
		// Share the fetch under way.
	case !fresh && !now.Before(s.retryAt):
		call = s.fetch(ctx)
	case !fresh:
		// Backing off after a failed fetch: a cached key still serves; anything else
		// cannot be decided.
		err := s.lastErr
		s.mu.Unlock()
		if found {
			return k, nil
		}
		return verificationKey{}, unavailable(err)
	case now.Sub(s.kidFetch) >= kidRefetchInterval:
		s.kidFetch = now
		call = s.fetch(ctx)
	default:
		s.mu.Unlock()
		return verificationKey{}, errUnknownKey
	}
	s.mu.Unlock()

	select {
	case <-call.done:
	case <-ctx.Done():
		return verificationKey{}, unavailable(ctx.Err())
	}
	s.mu.Lock()
	k, found = s.keys[kid]
	s.mu.Unlock()
	switch {
	case found:
		return k, nil
	case call.err != nil:
		return verificationKey{}, unavailable(call.err)
	}
	return verificationKey{}, errUnknownKey
}

// fetch starts a fetch; s.mu is held. The fetch runs on its own goroutine and context, so
// the caller that happened to start it can give up without failing everyone waiting on it.
func (s *keySet) fetch(ctx context.Context) *fetchCall {
	call := &fetchCall{done: make(chan struct{})}
	s.inflight = call
	go func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		keys, err := s.load(fctx)
		cancel()
		s.mu.Lock()
		now := s.now()
		if err == nil {
			s.keys, s.fetchedAt, s.retryAt, s.lastErr = keys, now, time.Time{}, nil
		} else {
			// The cached set, if any, stays: an issuer outage must not lock everyone out.
			s.retryAt, s.lastErr = now.Add(fetchBackoff), err
		}
		call.err = err
		s.inflight = nil
		s.mu.Unlock()
		close(call.done)
	}()
	return call
}

// jwk is the subset of RFC 7517/7518 members the service reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func (s *keySet) load(ctx context.Context) (map[string]verificationKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxJWKSBytes))
		return nil, fmt.Errorf("fetch JWKS %s: status %d", s.url, resp.StatusCode)
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("decode JWKS from %s: %w", s.url, err)
	}
	keys := make(map[string]verificationKey, len(set.Keys))
	for _, j := range set.Keys {
		k, err := j.verificationKey()
		if err != nil || j.Kid == "" {
			// An issuer may publish keys for other uses or algorithms; they are simply
			// not ours to verify with.
			continue
		}
		if _, dup := keys[j.Kid]; !dup {
			keys[j.Kid] = k
		}
	}
	if len(keys) == 0 {
		// Replacing a good set with an empty one would refuse every token; treat it as
		// a failed fetch so the cached set keeps serving.
		return nil, fmt.Errorf("JWKS from %s has no usable RS256 or ES256 signing key", s.url)
	}
	return keys, nil
}

var errUnsupportedKey = errors.New("unsupported key")

func (j jwk) verificationKey() (verificationKey, error) {
	if j.Use != "" && j.Use != "sig" {
		return verificationKey{}, errUnsupportedKey
	}
	switch j.Kty {
	case "RSA":
		if j.Alg != "" && j.Alg != "RS256" {
			return verificationKey{}, errUnsupportedKey
		}
		n, err1 := b64BigInt(j.N)
		e, err2 := b64BigInt(j.E)
		if err1 != nil || err2 != nil || n.BitLen() < minRSABits || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
			return verificationKey{}, errUnsupportedKey
		}
		return verificationKey{alg: "RS256", pub: &rsa.PublicKey{N: n, E: int(e.Int64())}}, nil
	case "EC":
		if j.Crv != "P-256" || (j.Alg != "" && j.Alg != "ES256") {
			return verificationKey{}, errUnsupportedKey
		}
		x, err1 := b64Coordinate(j.X)
		y, err2 := b64Coordinate(j.Y)
		if err1 != nil || err2 != nil {
			return verificationKey{}, errUnsupportedKey
		}
		// ParseUncompressedPublicKey checks the point is on the curve: an off-curve point
		// is the classic invalid-curve attack.
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return verificationKey{}, errUnsupportedKey
		}
		return verificationKey{alg: "ES256", pub: pub}, nil
	}
	return verificationKey{}, errUnsupportedKey
}

func b64BigInt(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, errUnsupportedKey
	}
	return new(big.Int).SetBytes(b), nil
}

// b64Coordinate decodes a P-256 coordinate to its fixed 32 bytes. RFC 7518 requires the
// full length, but some issuers drop leading zeros, so shorter values are padded.
func b64Coordinate(s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 || len(b) > 32 {
		return nil, errUnsupportedKey
	}
	return append(make([]byte, 32-len(b)), b...), nil
}
