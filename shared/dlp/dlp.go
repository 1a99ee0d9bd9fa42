package dlp

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Destination is where a payload goes next; it selects the policy applied to findings.
type Destination string

const (
	AIPrompt       Destination = "ai_prompt"       // anonymize every finding with typed placeholders
	ConnectorWrite Destination = "connector_write" // block secrets, card data and SSNs; allow contact data and IBANs
	Record         Destination = "record"          // audit, trace and log records: redact everything
	// Stored is what is kept at rest of data received from outside (a sync error's message
	// and payload): credentials and keys are redacted, card numbers kept as PCI masks
	// (first 6, last 4), national ids masked; contact data and IBANs are kept, since a fix
	// may need them, and masked on the way out (Display).
	Stored Destination = "stored"
	// Display is what an API answer shows of stored data: every finding masked the way
	// Finding.Sample is ("j***@e***.com", "*****6789"), recognisable and unusable.
	Display Destination = "display"
)

// Finding types, the values of Finding.Type.
const (
	TypeCardNumber         = "card_number"
	TypeIBAN               = "iban"
	TypeSSN                = "ssn"
	TypeEmail              = "email"
	TypePhone              = "phone"
	TypeAWSAccessKeyID     = "aws_access_key_id"
	TypeAWSSecretAccessKey = "aws_secret_access_key"
	TypePrivateKey         = "private_key"
	TypeJWT                = "jwt"
	TypeBearerToken        = "bearer_token"
	TypeAPIKey             = "api_key"
	TypeURLPassword        = "url_password"
	TypePasswordField      = "password_field"
)

// ServiceTokenPrefix starts the service tokens the product issues to embedded sidecars.
// Tokens that start with it and are at least 40 characters long are reported as api_key, so
// a leaked token is caught before it reaches a prompt, a connector or a log.
const ServiceTokenPrefix = "sat_"

// ErrBlocked is wrapped by Result.Err when a connector write must not happen.
var ErrBlocked = errors.New("dlp: blocked")

// ErrInvalidJSON is wrapped by the error ScanJSON returns for a document it cannot parse.
// The scan fails closed: there is no output to send.
var ErrInvalidJSON = errors.New("dlp: invalid JSON")

// Finding is one sensitive value. It never holds the value itself.
type Finding struct {
	Type string `json:"type"`
	// Path is the JSON path of the string (or number) holding the value, "$" for plain text.
	// Object keys that hold findings appear in paths the way the destination's output shows
	// them (placeholder for AIPrompt, redacted otherwise), so a path never leaks a value.
	// Paths deeper than 32 levels keep their first 8 and last 16 elements around a "…".
	Path string `json:"path"`
	// Start and End are byte offsets of the value within the decoded string at Path (within
	// the key itself when Key is set, within the number's literal for a JSON number).
	Start int `json:"start"`
	End   int `json:"end"`
	// Key reports that the value sits in the object key named by the last element of Path.
	Key        bool    `json:"key,omitempty"`
	Sample     string  `json:"sample"`     // masked: at most 4 leading and 4 trailing characters
	Confidence float64 `json:"confidence"` // 0..1
}

// Result is the outcome of one scan.
type Result struct {
	Findings []Finding
	// Blocked is true only for ConnectorWrite, when a blocking type was found.
	Blocked bool
	// Reason names the blocking types (never values) when Blocked.
	Reason string
	// Output is the document after the destination's policy: anonymized for AIPrompt,
	// redacted for Record, the input itself for ConnectorWrite (nil when blocked, so a
	// blocked payload cannot be sent by mistake). It is valid JSON when the input was JSON.
	// It may share memory with the input when the scan changed nothing.
	Output []byte
}

// Counts returns the number of findings per type, for audit records.
func (r Result) Counts() map[string]int {
	counts := make(map[string]int, len(r.Findings))
	for _, f := range r.Findings {
		counts[f.Type]++
	}
	return counts
}

// Err returns an error wrapping ErrBlocked when the result blocks the send, nil otherwise.
func (r Result) Err() error {
	if !r.Blocked {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrBlocked, r.Reason)
}

// Scanner runs the detectors. Its tables are compiled into the binary, so construction costs
// next to nothing at cold start. It is safe for concurrent use by any number of goroutines;
// its only state is a cache of what it learnt about field names.
type Scanner struct {
	keys [1024]atomic.Pointer[cachedKey]
	// onValue, set only by tests, receives each reported value so properties such as "the
	// output never contains a reported value" can be checked without the API exposing values.
	onValue func(string)
}

// keyInfo is what a scan needs to know about an object key.
type keyInfo struct {
	fc    fieldCtx // what the name says about the value
	clean bool     // the name itself holds no finding
	pair  pairRole // the member's part in a name/value pair
	// describes: the name says its value describes a credential, not holds it
	// (describesSecret); a secret's name above it passes nothing on to it.
	describes bool
}

type cachedKey struct {
	key string
	keyInfo
}

func newKeyInfo(key string) keyInfo {
	var buf [4]span
	spans := resolve(detect(key, 0, buf[:0]))
	if len(spans) == 0 {
		return keyInfo{fc: classifyKey(key), clean: true, pair: pairRoleOf(key), describes: describesSecret(key)}
	}
	return keyInfo{fc: classifyKey(withoutFindings(key, spans))}
}

// withoutFindings is a name as it reads once its findings (spans) are placeholders:
// "secret=000" names a secret either way. Each finding becomes one space, as short as its
// placeholder reads, so a long one cannot push the name's words out of the part
// classifyKey reads (a rescan of the output must see the name the same way).
func withoutFindings(name string, spans []span) string {
	b := make([]byte, 0, len(name))
	at := 0
	for _, sp := range spans {
		b = append(append(b, name[at:sp.start]...), ' ')
		at = sp.end
	}
	return string(append(b, name[at:]...))
}

// keyInfo is newKeyInfo behind a small cache shared by all scans: the documents of one
// tenant repeat a few dozen field names thousands of times. A hostile document with endless
// distinct names only evicts entries; the cache never grows.
func (s *Scanner) keyInfo(key string) keyInfo {
	if key == "" || len(key) > 64 {
		return newKeyInfo(key)
	}
	// Length and the bytes at both ends tell field names apart well enough, for less than a
	// full hash costs.
	n := len(key)
	h := (uint32(n)*0x9E3779B1 ^ uint32(key[0])<<16 ^ uint32(key[n-1])<<8 ^ uint32(key[n/2])) * 0x85EBCA6B
	h ^= h >> 13
	// Two candidate slots, so two hot names that share one do not evict each other forever.
	a, b := &s.keys[h%uint32(len(s.keys))], &s.keys[(h>>16)%uint32(len(s.keys))]
	ca, cb := a.Load(), b.Load()
	if ca != nil && ca.key == key {
		return ca.keyInfo
	}
	if cb != nil && cb.key == key {
		return cb.keyInfo
	}
	info := newKeyInfo(key)
	if ca != nil && cb == nil {
		a = b
	}
	// Clone: the cache must not keep a scanned document alive.
	a.Store(&cachedKey{key: strings.Clone(key), keyInfo: info})
	return info
}

// NewScanner returns a Scanner. Build one per process and share it.
func NewScanner() *Scanner { return &Scanner{} }

// ScanJSON scans every string value, object key and number of doc and applies dest's
// policy. It returns an error wrapping ErrInvalidJSON, and no output, when doc is not valid
// JSON. doc must not change during the call.
func (s *Scanner) ScanJSON(dest Destination, doc []byte) (Result, error) {
	if err := checkDestination(dest); err != nil {
		return Result{}, err
	}
	// src aliases doc instead of copying it: doc does not change during the call, and
	// nothing a scan keeps or returns shares src's memory (paths, samples and rewrites are
	// built afresh, the key cache clones its keys), which TestScanKeepsNoReferenceToDoc
	// checks by overwriting the document after each scan.
	st := newScanState(s, dest, doc, unsafe.String(unsafe.SliceData(doc), len(doc)))
	defer st.release()
	if err := st.document(); err != nil {
		return Result{}, err
	}
	return st.result(doc), nil
}

// ScanText scans free text (an error message, a prompt, a log line) and applies dest's
// policy. Findings have Path "$".
func (s *Scanner) ScanText(dest Destination, text string) (Result, error) {
	if err := checkDestination(dest); err != nil {
		return Result{}, err
	}
	// The state comes from ScanJSON's pool: it would escape to the heap on every call.
	st := newScanState(s, dest, nil, text)
	defer st.release()
	st.text = true
	st.spans = st.spanBuf[:0]
	st.scanString(0, len(text), text, 0)
	return st.result([]byte(text)), nil
}

// RedactString applies dest's policy to a short string (a resource name, an id) and
// returns it, the same string when nothing was found, without ScanText's copies.
func (s *Scanner) RedactString(dest Destination, text string) (string, error) {
	if err := checkDestination(dest); err != nil {
		return "", err
	}
	st := newScanState(s, dest, nil, text)
	defer st.release()
	st.text = true
	st.spans = st.spanBuf[:0]
	st.scanString(0, len(text), text, 0)
	if st.out == nil || dest == ConnectorWrite {
		return text, nil
	}
	return string(st.out), nil
}

func checkDestination(dest Destination) error {
	switch dest {
	case AIPrompt, ConnectorWrite, Record, Stored, Display:
		return nil
	}
	// An unknown destination has no policy; scanning for it would have to guess.
	return fmt.Errorf("dlp: unknown destination %q", string(dest))
}

func (st *scanState) result(input []byte) Result {
	r := Result{Findings: st.findings, Output: input}
	if st.out != nil {
		if st.text {
			r.Output = st.out
		} else {
			r.Output = append(st.out, st.doc[st.copied:]...)
		}
	}
	if st.dest == ConnectorWrite {
		var blocking []string
		for _, f := range st.findings {
			if k, ok := kindByName(f.Type); ok && kinds[k].blocksConnectorWrite {
				blocking = append(blocking, f.Type)
			}
		}
		if len(blocking) > 0 {
			r.Blocked = true
			r.Reason = blockReason(blocking)
			r.Output = nil
		}
	}
	return r
}

func blockReason(types []string) string {
	sort.Strings(types)
	var b strings.Builder
	b.WriteString("connector write carries ")
	for i := 0; i < len(types); {
		j := i
		for j < len(types) && types[j] == types[i] {
			j++
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d)", types[i], j-i)
		i = j
	}
	return b.String()
}
