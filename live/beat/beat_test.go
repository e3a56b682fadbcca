package beat

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// TestRoundTrip: a datagram parses back to what was encoded and is valid
// under its key only; changing any byte of it makes it invalid or not a
// datagram.
func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.SliceOfN(rapid.Byte(), KeySize, KeySize).Draw(t, "key")
		other := rapid.SliceOfN(rapid.Byte(), KeySize, KeySize).Draw(t, "other")
		d := Datagram{Session: rapid.Uint64().Draw(t, "session"), Seq: rapid.Uint64().Draw(t, "seq"), State: rapid.Byte().Draw(t, "state")}
		b := Encode(key, d)
		got, ok := Parse(b)
		if !ok || got != d {
			t.Fatalf("parsed %+v %v, want %+v", got, ok, d)
		}
		v := NewVerifier(key)
		if !v.Valid(b) || !v.Valid(b) { // twice: the verifier's hash is reused
			t.Fatal("not valid under its own key")
		}
		if !bytes.Equal(key, other) && NewVerifier(other).Valid(b) {
			t.Fatal("valid under another key")
		}
		i := rapid.IntRange(0, Size-1).Draw(t, "byte")
		c := append([]byte(nil), b...)
		c[i] ^= byte(rapid.IntRange(1, 255).Draw(t, "flip"))
		if _, ok := Parse(c); ok && v.Valid(c) {
			t.Fatalf("byte %d changed: still a valid datagram", i)
		}
	})
}

func TestParseRefuses(t *testing.T) {
	b := Encode(NewKey(), Datagram{Session: 1, Seq: 1, State: 1})
	for name, c := range map[string][]byte{
		"short":      b[:Size-1],
		"long":       append(append([]byte(nil), b...), 0),
		"magic":      append([]byte("XXXX"), b[4:]...),
		"version":    append(append(append([]byte(nil), b[:4]...), 2), b[5:]...),
		"empty":      nil,
		"only magic": []byte("VSHB"),
	} {
		if _, ok := Parse(c); ok {
			t.Errorf("%s: parsed", name)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	key := NewKey()
	d := Encode(key, Datagram{Session: 7, Seq: 9, State: 1})
	v := NewVerifier(key)
	b.ReportAllocs()
	for b.Loop() {
		if !v.Valid(d) {
			b.Fatal("invalid")
		}
	}
}
