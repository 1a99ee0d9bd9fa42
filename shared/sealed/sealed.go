// Package sealed keeps secrets encrypted at rest with envelope encryption: each value is
// encrypted (AES-256-GCM) under a fresh data key, and the data key is wrapped by a master
// key that never leaves its keeper (AWS KMS in the cloud, a local key in make run), bound
// to an encryption context (the tenant id). A stored value reads
//
//	sealed:v1:<wrapped data key>.<nonce>.<ciphertext>   (each unpadded base64url)
//
// A value without the prefix is plaintext from before sealing existed: Open returns it as
// it is, so existing rows keep working and are sealed the next time they are written.
package sealed

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Prefix marks a sealed value.
const Prefix = "sealed:v1:"

// ErrOpen means a sealed value could not be opened: a wrong context, a damaged value, or a
// master key this process may not use.
var ErrOpen = errors.New("sealed: cannot open value")

// Wrapper keeps the master key: it makes data keys and unwraps them, bound to aad (the
// encryption context). kmskey.Wrapper is the AWS KMS one; LocalWrapper the local one.
type Wrapper interface {
	// NewDataKey returns a fresh 32-byte data key and its wrapped form.
	NewDataKey(ctx context.Context, aad map[string]string) (plain, wrapped []byte, err error)
	// Unwrap returns the data key of wrapped.
	Unwrap(ctx context.Context, wrapped []byte, aad map[string]string) ([]byte, error)
}

// Sealer seals and opens values. Unwrapped data keys are remembered (a bounded map), so a
// warm function asks the key keeper once per data key, not once per request.
type Sealer struct {
	Wrapper Wrapper

	mu   sync.Mutex
	keys map[string][]byte // wrapped data key (as stored) → data key
}

// maxCachedKeys bounds the remembered data keys; each tenant secret has its own.
const maxCachedKeys = 4096

// Sealed reports whether v is a sealed value.
func Sealed(v string) bool { return strings.HasPrefix(v, Prefix) }

// Seal encrypts plain for the encryption context aad. A nil Sealer (or one without a
// Wrapper) returns plain unchanged: sealing is off.
func (s *Sealer) Seal(ctx context.Context, plain string, aad map[string]string) (string, error) {
	if s == nil || s.Wrapper == nil || plain == "" || Sealed(plain) {
		return plain, nil
	}
	key, wrapped, err := s.Wrapper.NewDataKey(ctx, aad)
	if err != nil {
		return "", fmt.Errorf("sealed: new data key: %w", err)
	}
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	ct := gcm.Seal(nil, nonce, []byte(plain), aadBytes(aad))
	enc := base64.RawURLEncoding.EncodeToString
	return Prefix + enc(wrapped) + "." + enc(nonce) + "." + enc(ct), nil
}

// Open decrypts v sealed for aad. A value that is not sealed is returned as it is.
func (s *Sealer) Open(ctx context.Context, v string, aad map[string]string) (string, error) {
	if !Sealed(v) {
		return v, nil
	}
	if s == nil || s.Wrapper == nil {
		return "", fmt.Errorf("%w: no key keeper configured", ErrOpen)
	}
	parts := strings.Split(strings.TrimPrefix(v, Prefix), ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("%w: malformed", ErrOpen)
	}
	dec := base64.RawURLEncoding.DecodeString
	wrapped, err1 := dec(parts[0])
	nonce, err2 := dec(parts[1])
	ct, err3 := dec(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return "", fmt.Errorf("%w: malformed", ErrOpen)
	}
	key, err := s.dataKey(ctx, parts[0], wrapped, aad)
	if err != nil {
		return "", err
	}
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	if len(nonce) != gcm.NonceSize() {
		return "", fmt.Errorf("%w: malformed", ErrOpen)
	}
	plain, err := gcm.Open(nil, nonce, ct, aadBytes(aad))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrOpen, err)
	}
	return string(plain), nil
}

// dataKey unwraps wrapped, remembering the result. The cache is keyed by the wrapped key
// and the context: the same wrapped key under another context is asked for again (and
// refused by the keeper).
func (s *Sealer) dataKey(ctx context.Context, id string, wrapped []byte, aad map[string]string) ([]byte, error) {
	k := id + "\x00" + string(aadBytes(aad))
	s.mu.Lock()
	key, ok := s.keys[k]
	s.mu.Unlock()
	if ok {
		return key, nil
	}
	key, err := s.Wrapper.Unwrap(ctx, wrapped, aad)
	if err != nil {
		return nil, fmt.Errorf("%w: unwrap data key: %w", ErrOpen, err)
	}
	s.mu.Lock()
	if s.keys == nil || len(s.keys) >= maxCachedKeys {
		s.keys = map[string][]byte{}
	}
	s.keys[k] = key
	s.mu.Unlock()
	return key, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sealed: data key: %w", err)
	}
	return cipher.NewGCM(block)
}

// aadBytes is the encryption context as additional authenticated data, in a fixed order.
func aadBytes(aad map[string]string) []byte {
	keys := make([]string, 0, len(aad))
	for k := range aad {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(aad[k])
		b.WriteByte(0)
	}
	return []byte(b.String())
}
