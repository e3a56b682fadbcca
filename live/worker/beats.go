package worker

import (
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/volsched/volsched/live/beat"
	"github.com/volsched/volsched/live/livepb"
)

// Beater sends a session's heart-beat datagrams (live/beat) to the
// master's UDP port (docs/runtime.md, "Heart-beats by UDP").
type Beater struct {
	conn    *net.UDPConn
	key     []byte
	session uint64
	seq     uint64
}

// NewBeater opens the UDP socket of a session's heart-beats to the host of
// master (its URL) at port, or to addr (HOST:PORT) when it is not empty (a
// master whose UDP port is forwarded from another address), signed with
// key.
func NewBeater(master string, port int32, addr string, key []byte, session uint64) (*Beater, error) {
	u, err := url.Parse(master)
	if err != nil {
		return nil, err
	}
	if port <= 0 || port > 65535 || len(key) != beat.KeySize {
		return nil, fmt.Errorf("heart-beats by UDP: port %d, key of %d bytes: want 1–65535 and %d", port, len(key), beat.KeySize)
	}
	if addr == "" {
		addr = net.JoinHostPort(u.Hostname(), strconv.Itoa(int(port)))
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	c, err := net.DialUDP("udp", nil, ua)
	if err != nil {
		return nil, err
	}
	return &Beater{conn: c, key: key, session: session}, nil
}

// Beat sends a heart-beat in state st (a datagram lost is a heart-beat
// lost: the master's fallback handles that).
func (b *Beater) Beat(st livepb.State) {
	b.seq++
	b.conn.Write(beat.Encode(b.key, beat.Datagram{Session: b.session, Seq: b.seq, State: byte(st)}))
}

// Close closes the socket.
func (b *Beater) Close() error { return b.conn.Close() }
