package identity_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/syncassist/syncassist/shared/identity"
)

func TestJWKSRotationRefetchesOnce(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	v := newVerifier(srv.URL, clock)
	ctx := context.Background()

	if _, err := v.Verify(ctx, sign(t, ecKey, baseClaims(clock.Now()))); err != nil {
		t.Fatal(err)
	}
	srv.setKeys(ecNext) // the issuer rotates; the cache is still fresh
	clock.Advance(time.Minute)
	rotated := sign(t, ecNext, baseClaims(clock.Now()))
	if _, err := v.Verify(ctx, rotated); err != nil {
		t.Fatalf("token of the new key: %v", err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("JWKS fetched %d times, want 2 (initial + one refetch)", n)
	}
	if _, err := v.Verify(ctx, rotated); err != nil {
		t.Fatal(err)
	}
	// The old key left the set with the refetch.
	if _, err := v.Verify(ctx, sign(t, ecKey, baseClaims(clock.Now()))); !errors.Is(err, identity.ErrTokenInvalid) {
		t.Fatalf("token of the retired key: err = %v, want ErrTokenInvalid", err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("JWKS fetched %d times, want still 2", n)
	}
}

func TestJWKSUnknownKidRefetchIsRateLimited(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	v := newVerifier(srv.URL, clock)
	ctx := context.Background()
	bogus := func(i int) string {
		return sign(t, signingKey{kid: fmt.Sprintf("bogus-%d", i), method: jwt.SigningMethodES256, priv: ecKey.priv}, baseClaims(clock.Now()))
	}
	if _, err := v.Verify(ctx, sign(t, ecKey, baseClaims(clock.Now()))); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := v.Verify(ctx, bogus(i)); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("bogus kid %d: err = %v, want ErrTokenInvalid", i, err)
		}
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("after 50 bogus kids: JWKS fetched %d times, want 2", n)
	}
	clock.Advance(29 * time.Second)
	_, _ = v.Verify(ctx, bogus(100))
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("29 s later: JWKS fetched %d times, want 2", n)
	}
	clock.Advance(2 * time.Second)
	_, _ = v.Verify(ctx, bogus(101))
	_, _ = v.Verify(ctx, bogus(102))
	if n := srv.hits.Load(); n != 3 {
		t.Fatalf("31 s later: JWKS fetched %d times, want 3", n)
	}
	// Known kids are unaffected by the flood.
	if _, err := v.Verify(ctx, sign(t, ecKey, baseClaims(clock.Now()))); err != nil {
		t.Fatal(err)
	}
}

func TestJWKSCacheTTL(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	v := newVerifier(srv.URL, clock)
	verify := func() {
		t.Helper()
		if _, err := v.Verify(context.Background(), sign(t, ecKey, baseClaims(clock.Now()))); err != nil {
			t.Fatal(err)
		}
	}
	verify()
	clock.Advance(identity.DefaultJWKSCacheTTL - time.Second)
	verify()
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("within the TTL: JWKS fetched %d times, want 1", n)
	}
	clock.Advance(time.Second)
	verify()
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("after the TTL: JWKS fetched %d times, want 2", n)
	}
}

func TestJWKSDownWithWarmCache(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	v := newVerifier(srv.URL, clock)
	verify := func(step string) {
		t.Helper()
		if _, err := v.Verify(context.Background(), sign(t, ecKey, baseClaims(clock.Now()))); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	verify("warm up")
	srv.setDown(true)
	clock.Advance(identity.DefaultJWKSCacheTTL + time.Minute)
	verify("stale cache, issuer down")
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("JWKS fetched %d times, want 2", n)
	}
	verify("backing off")
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("while backing off: JWKS fetched %d times, want 2", n)
	}
	// An unknown kid cannot be decided while the issuer is failing.
	other := sign(t, ecNext, baseClaims(clock.Now()))
	if _, err := v.Verify(context.Background(), other); !errors.Is(err, identity.ErrJWKSUnavailable) {
		t.Fatalf("unknown kid, issuer down: err = %v, want ErrJWKSUnavailable", err)
	}
	srv.setDown(false)
	clock.Advance(10 * time.Second)
	verify("issuer back")
	if n := srv.hits.Load(); n != 3 {
		t.Fatalf("issuer back: JWKS fetched %d times, want 3", n)
	}
	verify("fresh again")
	if n := srv.hits.Load(); n != 3 {
		t.Fatalf("fresh again: JWKS fetched %d times, want 3", n)
	}
}

func TestJWKSUnavailableWithColdCache(t *testing.T) {
	testKeys(t)
	clock := newClock()
	failing := newJWKSServer(t, ecKey)
	failing.setDown(true)
	closed := newJWKSServer(t, ecKey)
	closed.Close()
	empty := newJWKSServer(t)
	garbage := newJWKSServer(t)
	garbage.setRaw("<html>not json</html>")
	// Keys the service must not verify with: a 1024-bit RSA key, an HMAC key, a P-384
	// key, a point off the curve, an encryption key, and keys without kid.
	unusable := newJWKSServer(t)
	unusable.setRaw(`{"keys":[
		{"kty":"RSA","kid":"weak","n":"` + strings.Repeat("A", 170) + `","e":"AQAB"},
		{"kty":"oct","kid":"hmac","k":"c2VjcmV0"},
		{"kty":"EC","kid":"p384","crv":"P-384","x":"AAAA","y":"AAAA"},
		{"kty":"EC","kid":"off-curve","crv":"P-256","x":"` + b64(make([]byte, 32)) + `","y":"` + b64(append(make([]byte, 31), 1)) + `"},
		{"kty":"EC","kid":"enc","use":"enc","crv":"P-256","x":"` + ecKey.jwk()["x"] + `","y":"` + ecKey.jwk()["y"] + `"},
		{"kty":"EC","crv":"P-256","x":"` + ecKey.jwk()["x"] + `","y":"` + ecKey.jwk()["y"] + `"}
	]}`)
	tok := sign(t, ecKey, baseClaims(clock.Now()))
	for name, url := range map[string]string{
		"500": failing.URL, "connection refused": closed.URL, "empty set": empty.URL, "not JSON": garbage.URL, "no usable key": unusable.URL,
	} {
		t.Run(name, func(t *testing.T) {
			v := newVerifier(url, clock)
			_, err := v.Verify(context.Background(), tok)
			if !errors.Is(err, identity.ErrJWKSUnavailable) || errors.Is(err, identity.ErrTokenInvalid) {
				t.Fatalf("err = %v, want ErrJWKSUnavailable only", err)
			}
		})
	}
}

func TestJWKSEmptyAnswerKeepsCachedSet(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	v := newVerifier(srv.URL, clock)
	tok := func() string { return sign(t, ecKey, baseClaims(clock.Now())) }
	if _, err := v.Verify(context.Background(), tok()); err != nil {
		t.Fatal(err)
	}
	srv.setRaw(`{"keys":[]}`)
	clock.Advance(identity.DefaultJWKSCacheTTL + time.Second)
	if _, err := v.Verify(context.Background(), tok()); err != nil {
		t.Fatalf("an empty answer replaced the cached set: %v", err)
	}
}

func TestJWKSConcurrentCallersShareOneFetch(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey, rsaKey)
	srv.setDelay(50 * time.Millisecond)
	v := newVerifier(srv.URL, clock)
	tokens := []string{sign(t, ecKey, baseClaims(clock.Now())), sign(t, rsaKey, baseClaims(clock.Now()))}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), tokens[i%2]); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("64 concurrent verifications fetched the JWKS %d times, want 1", n)
	}
}

func TestJWKSWaiterCancellationDoesNotFailOthers(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	srv.setDelay(300 * time.Millisecond)
	v := newVerifier(srv.URL, clock)
	tok := sign(t, ecKey, baseClaims(clock.Now()))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := v.Verify(ctx, tok); done <- err }()
	for srv.hits.Load() == 0 { // the first caller's fetch reached the issuer
		time.Sleep(time.Millisecond)
	}
	cancel() // and its caller gives up while the issuer is still answering
	if err := <-done; !errors.Is(err, identity.ErrJWKSUnavailable) {
		t.Fatalf("cancelled caller: err = %v, want ErrJWKSUnavailable", err)
	}
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("second caller: %v", err)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times, want 1: the second caller must share the first's fetch", n)
	}
}

// signTyped signs claims with k under the typ header typ ("" leaves typ out).
