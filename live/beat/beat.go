// Package beat is the heart-beat datagram of the live runtime: a worker's
// plain heart-beat (nothing changed since the last) sent by UDP to the
// master instead of on its session socket (docs/runtime.md, "Heart-beats
// by UDP"). A datagram is read by one goroutine of the master that takes
// them in batches: no connection's goroutine to wake, no TLS record, no
// TCP acknowledgement per heart-beat.
//
// A datagram is authenticated by the session's key, which the master gave
// the worker in its registration over TLS: HMAC-SHA-256 over the
// datagram's first bytes, truncated to 16 bytes. Its sequence number,
// increasing within the session, makes a replayed datagram worthless.
//
//	offset  size  field
//	0       4     magic "VSHB"
//	4       1     version (1)
//	5       1     state (livepb.State: 1 UP, 2 RECLAIMED)
//	6       8     session, big-endian
//	14      8     sequence number, big-endian, from 1
//	22      16    HMAC-SHA-256(key, bytes 0–21), first 16 bytes
package beat

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
)

// Size is the size of a datagram.
const Size = 38

// KeySize is the size of a session's key.
const KeySize = 32

const (
	magic   = "VSHB"
	version = 1
	signed  = 22
)

// NewKey returns a new random session key.
func NewKey() []byte {
	k := make([]byte, KeySize)
	rand.Read(k) // never fails (crypto/rand)
	return k
}

// Datagram is a heart-beat datagram's content.
type Datagram struct {
	Session uint64
	Seq     uint64
	State   byte
}

// Encode returns the datagram of d signed with key.
func Encode(key []byte, d Datagram) []byte {
	b := make([]byte, Size)
	copy(b, magic)
	b[4] = version
	b[5] = d.State
	binary.BigEndian.PutUint64(b[6:], d.Session)
	binary.BigEndian.PutUint64(b[14:], d.Seq)
	m := hmac.New(sha256.New, key)
	m.Write(b[:signed])
	copy(b[signed:], m.Sum(nil))
	return b
}

// Parse reads the fields of b without checking its signature (the session
// names the key to check it with): ok is false if b is not a datagram of
// this version.
func Parse(b []byte) (d Datagram, ok bool) {
	if len(b) != Size || string(b[:4]) != magic || b[4] != version {
		return Datagram{}, false
	}
	return Datagram{State: b[5], Session: binary.BigEndian.Uint64(b[6:]), Seq: binary.BigEndian.Uint64(b[14:])}, true
}

// Verifier checks datagrams' signatures. It keeps a hash per key: not for
// use by several goroutines at once.
type Verifier struct {
	key []byte
	mac hash.Hash
	sum []byte
}

// NewVerifier returns a verifier for key.
func NewVerifier(key []byte) *Verifier {
	return &Verifier{key: key, mac: hmac.New(sha256.New, key), sum: make([]byte, 0, sha256.Size)}
}

// Valid reports whether b (a datagram Parse accepted) is signed with the
// verifier's key (in constant time).
func (v *Verifier) Valid(b []byte) bool {
	if len(b) != Size {
		return false
	}
	v.mac.Reset()
	v.mac.Write(b[:signed])
	v.sum = v.mac.Sum(v.sum[:0])
	return hmac.Equal(v.sum[:Size-signed], b[signed:])
}
