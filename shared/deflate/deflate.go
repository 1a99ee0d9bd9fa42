// Package deflate stores write-once documents of DynamoDB items smaller: a rules trace of
// the AI records, the detail part of a claim row's proposal (issue 37 §1: a write is billed
// per started kilobyte of the item).
package deflate

import (
	"bytes"
	"compress/flate"
	"io"
	"math/bits"
)

// Inflate reads what Compress wrote (any DEFLATE stream).
func Inflate(z []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(z)))
}

// InflateDict reads what CompressDict wrote with the same dictionary.
func InflateDict(z []byte, dict string) ([]byte, error) {
	return io.ReadAll(flate.NewReaderDict(bytes.NewReader(z), []byte(dict)))
}

// Compress compresses data to DEFLATE (RFC 1951) that compress/flate's reader inflates:
// one final block with the fixed Huffman codes (section 3.2.6) and greedy LZ77 matches,
// the longest of the last 64 positions that share the next three bytes' hash.
// compress/flate's writer would deflate a rules trace to 33 %, this to about 40 %; but its
// compressor is 17 KB of code, and the diagnose function that writes the traces stands a
// few KB from a 64 KiB page of its text segment under its 10 MiB limit
// (functions/size_test.go). This is under 2 KB.
func Compress(data []byte) []byte { return CompressDict(data, "") }

// CompressDict is Compress with a preset dictionary (RFC 1951 section 1.4: the stream may
// copy from the bytes before its start): text that recurs across documents, such as
// their field names, is copied from dict instead of spelled out once per document. The
// reader must be given the same dict (InflateDict), so a dictionary in use never changes.
func CompressDict(data []byte, dict string) []byte {
	all := make([]byte, 0, len(dict)+len(data))
	all = append(append(all, dict...), data...)
	w := bitWriter{out: make([]byte, 0, len(data)/2+16)}
	w.bits(1|1<<1, 3) // BFINAL, then BTYPE 01: the fixed codes
	m := newMatcher(all)
	for i := 0; i < len(dict); i++ {
		m.insert(i)
	}
	for i := len(dict); i < len(all); {
		n, dist := m.longest(i)
		if n < 3 {
			w.lit(int(all[i]))
			m.insert(i)
			i++
			continue
		}
		w.match(n, dist)
		for end := i + n; i < end; i++ {
			m.insert(i)
		}
	}
	w.lit(256)   // end of block
	w.bits(0, 7) // the last byte's padding
	return w.out
}

// matcher finds earlier copies of the bytes at a position: head holds the last position
// + 1 of each hash of three bytes (0 for none), prev the one before each position's.
type matcher struct {
	b    []byte
	head [1 << 12]int32
	prev []int32
}

func newMatcher(b []byte) *matcher { return &matcher{b: b, prev: make([]int32, len(b))} }

func (m *matcher) insert(i int) {
	if i+3 <= len(m.b) {
		h := hash3(m.b[i:])
		m.prev[i] = m.head[h]
		m.head[h] = int32(i + 1)
	}
}

// longest is the longest match (up to 258 bytes) at i among the 64 nearest positions of
// its hash within the 32 KB window, the nearest of equal ones: a dictionary's names share
// their first bytes with many others, so the last one alone is seldom the best.
func (m *matcher) longest(i int) (n, dist int) {
	if i+3 > len(m.b) {
		return 0, 0
	}
	for p, tries := int(m.head[hash3(m.b[i:])])-1, 0; p >= 0 && i-p <= 32768 && tries < 64; p, tries = int(m.prev[p])-1, tries+1 {
		k := 0
		for k < 258 && i+k < len(m.b) && m.b[p+k] == m.b[i+k] {
			k++
		}
		if k > n {
			n, dist = k, i-p
			if n == 258 {
				break
			}
		}
	}
	return n, dist
}

func hash3(b []byte) uint32 {
	return (uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])) * 2654435761 >> 20
}

// The base of each length code from 257 and of each distance code (RFC 1951, 3.2.5).
var (
	lenBase  = [...]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	distBase = [...]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
		4097, 6145, 8193, 12289, 16385, 24577}
)

type bitWriter struct {
	out []byte
	acc uint64
	n   uint
}

// bits writes the n low bits of v, least significant first.
func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.n
	for w.n += n; w.n >= 8; w.n -= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
	}
}

// code writes an n-bit Huffman code, most significant bit first.
func (w *bitWriter) code(c int, n uint) { w.bits(uint64(bits.Reverse32(uint32(c))>>(32-n)), n) }

// lit writes literal/length symbol v in the fixed code.
func (w *bitWriter) lit(v int) {
	switch {
	case v < 144:
		w.code(0x30+v, 8)
	case v < 256:
		w.code(0x190+v-144, 9)
	case v < 280:
		w.code(v-256, 7)
	default:
		w.code(0xc0+v-280, 8)
	}
}

// match writes a copy of n bytes (3 to 258) from dist back (1 to 32768).
func (w *bitWriter) match(n, dist int) {
	c := len(lenBase) - 1
	for int(lenBase[c]) > n {
		c--
	}
	w.lit(257 + c)
	if c >= 8 && c < 28 {
		w.bits(uint64(n-int(lenBase[c])), uint(c-4)/4)
	}
	d := len(distBase) - 1
	for int(distBase[d]) > dist {
		d--
	}
	w.code(d, 5)
	if d >= 4 {
		w.bits(uint64(dist-int(distBase[d])), uint(d-2)/2)
	}
}
