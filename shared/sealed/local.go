package sealed

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// LocalWrapper wraps data keys with a master key held in the process (AES-256-GCM, the
// encryption context as additional data). It is the key keeper of make run and of tests;
// in AWS the master key is a KMS key (kmskey.Wrapper), which no function ever holds.
type LocalWrapper struct {
	Key []byte // 32 bytes
}

// ParseLocalKey reads a base64 master key of 32 bytes (LOCAL_SEALING_KEY).
func ParseLocalKey(s string) (*LocalWrapper, error) {
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(key) != 32 {
		return nil, errors.New("sealed: a local master key is 32 bytes in standard base64")
	}
	return &LocalWrapper{Key: key}, nil
}

// NewLocalKey returns a fresh master key in ParseLocalKey's form.
func NewLocalKey() string {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return base64.StdEncoding.EncodeToString(key)
}

// NewDataKey implements Wrapper.
func (w *LocalWrapper) NewDataKey(_ context.Context, aad map[string]string) ([]byte, []byte, error) {
	plain := make([]byte, 32)
	if _, err := rand.Read(plain); err != nil {
		return nil, nil, err
	}
	gcm, err := newGCM(w.Key)
	if err != nil {
		return nil, nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return plain, append(nonce, gcm.Seal(nil, nonce, plain, aadBytes(aad))...), nil
}

// Unwrap implements Wrapper.
func (w *LocalWrapper) Unwrap(_ context.Context, wrapped []byte, aad map[string]string) ([]byte, error) {
	gcm, err := newGCM(w.Key)
	if err != nil {
		return nil, err
	}
	if len(wrapped) < gcm.NonceSize() {
		return nil, fmt.Errorf("wrapped key too short")
	}
	return gcm.Open(nil, wrapped[:gcm.NonceSize()], wrapped[gcm.NonceSize():], aadBytes(aad))
}
