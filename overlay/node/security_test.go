package node

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/overlay"
)

// A peer without a certificate from the cluster's CA is refused at the
// TLS handshake, and so is a plain TCP client; nothing it sends reaches
// the node.
func TestUnauthenticatedPeerRefused(t *testing.T) {
	cl := newCluster(t, 2, false, nil)
	addr := cl.nodes[0].Addr()
	// Credentials of another CA.
	dir := t.TempDir()
	if _, err := InitCA(filepath.Join(dir, "other")); err != nil {
		t.Fatal(err)
	}
	if err := Issue(filepath.Join(dir, "other"), "intruder", []string{"127.0.0.1"}, time.Hour, filepath.Join(dir, "cred")); err != nil {
		t.Fatal(err)
	}
	cert, ca, err := LoadCredentials(filepath.Join(dir, "cred"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before, _ := cl.nodes[0].Status()
	// The intruder trusts the cluster's CA (it knows the node's
	// certificate) but presents its own: the node refuses it.
	c, err := Dial(ctx, addr, cert, sharedCreds(t).ca)
	if err == nil {
		_, err = c.Status(ctx)
		c.Close()
	}
	if err == nil {
		t.Fatal("a client with a certificate from another CA got an answer")
	}
	// With its own CA only, it does not even accept the node.
	if c, err := Dial(ctx, addr, cert, ca); err == nil {
		if _, err := c.Status(ctx); err == nil {
			t.Fatal("a client trusting another CA got an answer")
		}
		c.Close()
	}
	// Plain TCP: a frame in clear is never read as one.
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := encodeControl(&Hello{Version: ProtocolVersion, Client: true})
	s, _ := encodeControl(&StatusReq{})
	raw.Write(append(h, s...))
	raw.SetReadDeadline(time.Now().Add(3 * time.Second))
	buf := make([]byte, 64)
	k, _ := raw.Read(buf)
	raw.Close()
	if bytes.Contains(buf[:k], []byte("node")) {
		t.Fatalf("a plain TCP client got %q", buf[:k])
	}
	waitFor(t, 5*time.Second, "refusals counted", func() (bool, string) {
		after, _ := cl.nodes[0].Status()
		return after.Traffic.Refused >= before.Traffic.Refused+2, fmt.Sprint(after.Traffic.Refused)
	})
}

// rawPeer is an authenticated connection that writes arbitrary frames.
func rawPeer(t *testing.T, addr, self string) *tls.Conn {
	cr := sharedCreds(t)
	c, err := tls.Dial("tcp", addr, tlsWithALPN(pki.MutualClientConfig(cr.cert, cr.ca)))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := encodeControl(&Hello{Version: ProtocolVersion, Node: self})
	if _, err := c.Write(h); err != nil {
		t.Fatal(err)
	}
	return c
}

func frame(t FrameType, payload []byte) []byte {
	b := make([]byte, 5, 5+len(payload))
	binary.BigEndian.PutUint32(b, uint32(len(payload)+1))
	b[4] = byte(t)
	return append(b, payload...)
}

// Messages from an authenticated peer that fail decoding or validation
// are dropped and logged, never applied: a summary claiming more than
// SF_max functions, a request of a negative or huge task count, a control
// message with unknown fields, an update from a vertex that is not the
// receiver's neighbour, an update of another policy (it panicked the
// receiver's rules). An update from a neighbour vertex sent by another
// member than its player is counted stale (the normal case: a former
// player's, in flight during a hand-over), not invalid, and not applied
// either. The node keeps working.
func TestInvalidMessagesDropped(t *testing.T) {
	cl := newCluster(t, 3, false, func(i int, c *Config) { c.SFMax = 4 })
	waitFor(t, 10*time.Second, "tree", func() (bool, string) {
		_, err := treeCheck(cl.nodes)
		return err == nil, fmt.Sprint(err)
	})
	// The root's player, and the vertex ids it plays.
	var target *Node
	var root Ref
	var child, other Ref
	for _, nd := range cl.nodes {
		s, _ := nd.Status()
		for _, r := range s.Routers {
			if r.View.Father.None() {
				target, root, child, other = nd, r.View.Self, r.View.Left, r.View.Right
			}
		}
	}
	if target == nil {
		t.Fatal("no root")
	}
	before, _ := target.Status()
	// Sent as the left child's node (an authenticated member).
	c := rawPeer(t, target.Addr(), child.Node)
	defer c.Close()
	big := make(overlay.IBPSummary, 9) // more than SF_max = 4
	for i := range big {
		big[i] = overlay.IBPCluster{Mem: 1, Disk: 1, V: 1}
	}
	msgs := []overlay.Msg{
		{Kind: overlay.KindUpdate, From: child.ID, To: root.ID, Sum: big},
		{Kind: overlay.KindUpdate, From: 12345, To: root.ID, Sum: overlay.IBPSummary{{Mem: 1, Disk: 1, V: 1000}}},
		{Kind: overlay.KindRequest, From: child.ID, To: root.ID, Req: overlay.Request{App: overlay.App{ID: 1, Length: 1}, Submitter: child.ID, Src: overlay.NoAddr, N: 1 << 30}},
		// a summary of another policy (a peer started with another
		// --policy): the IBP rules would panic on it
		{Kind: overlay.KindUpdate, From: child.ID, To: root.ID, Sum: overlay.MMPSummary{{Mem: 1, Disk: 1, Power: 1, V: 1}}},
	}
	var bad int
	for _, m := range msgs {
		b, err := appendOverlayFrame(wireCodec{}, child.Node, &m)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(b)
		bad++
	}
	for _, f := range [][]byte{
		frame(fOverlay, []byte{0, 9, 9, 9}),                                  // not the wire form
		frame(fHeartbeat, []byte(`{"from":{"self":{"id":1}},"nonsense":1}`)), // unknown field
		frame(fClaim, []byte(`{"bag":1,"n":-3,"node":"x:1"}`)),               // negative count
		frame(fJoin, []byte(`{"node":"nohostport","hops":0,"to":{"id":0}}`)), // bad address
	} {
		c.Write(f)
		bad++
	}
	waitFor(t, 10*time.Second, "invalid messages counted", func() (bool, string) {
		s, _ := target.Status()
		return s.Traffic.Invalid >= before.Traffic.Invalid+uint64(bad), fmt.Sprintf("%d of %d", s.Traffic.Invalid-before.Traffic.Invalid, bad)
	})
	// A well-formed update naming the left child's vertex, sent by the
	// right child's node (what a vertex's former player sends before it
	// hears of a hand-over): stale, not invalid, not applied either.
	if other.Node == child.Node {
		t.Fatalf("the root's two children are played by one node (%s)", child.Node)
	}
	mid, _ := target.Status()
	c2 := rawPeer(t, target.Addr(), other.Node)
	defer c2.Close()
	m := overlay.Msg{Kind: overlay.KindUpdate, From: child.ID, To: root.ID, Sum: overlay.IBPSummary{{Mem: 1, Disk: 1, V: 1000}}}
	b, err := appendOverlayFrame(wireCodec{}, other.Node, &m)
	if err != nil {
		t.Fatal(err)
	}
	c2.Write(b)
	waitFor(t, 10*time.Second, "the stale update counted", func() (bool, string) {
		s, _ := target.Status()
		return s.Traffic.Stale > mid.Traffic.Stale, fmt.Sprintf("stale %d", s.Traffic.Stale)
	})
	if s, _ := target.Status(); s.Traffic.Invalid != mid.Traffic.Invalid {
		t.Errorf("the stale update was counted invalid (%d → %d)", mid.Traffic.Invalid, s.Traffic.Invalid)
	}
	// Nothing was applied: the root's branch still covers the three
	// nodes only (not the 1000 of the forged update), and a bag still runs.
	s, _ := target.Status()
	for _, r := range s.Routers {
		if r.View.Self.Same(root) && r.Available > 3 {
			t.Errorf("root's summary covers %d nodes after forged updates", r.Available)
		}
	}
	cl.mu.Lock()
	logs := strings.Join(cl.logs, "\n")
	cl.mu.Unlock()
	if !strings.Contains(logs, "dropped") {
		t.Error("no drop was logged")
	}
	id, err := cl.client(0).Submit(cl.ctx, &Job{Tasks: 3, Length: 1, Program: []byte(catProgram)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "bag after the invalid messages", func() (bool, string) {
		s, _ := cl.nodes[0].Status()
		for _, b := range s.Bags {
			if b.ID == id {
				return b.Done == 3, fmt.Sprintf("%+v", b)
			}
		}
		return false, "no bag"
	})
}

// FuzzControlFrame: any bytes read as a frame either decode to a valid
// control message or are refused with an error; never a panic.
func FuzzControlFrame(f *testing.F) {
	for _, m := range []validator{
		&Hello{Version: 1, Node: "127.0.0.1:1"},
		&Heartbeat{From: View{Self: Ref{ID: 1, Node: "a:1"}}, To: Ref{ID: 2, Node: "b:2"}, Stats: &Stats{Leaves: 1}},
		&Join{Node: "a:1"},
		&Assign{Bag: 1, Claimed: 1, Tasks: []TaskSpec{{Index: 0}}, Program: strings.Repeat("a", 64)},
		&Result{Node: "a:1", Bag: 1, Task: 2},
		&Job{Tasks: 1, Length: 1, Program: []byte("x")},
	} {
		b, err := encodeControl(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ft, payload, err := readFrame(bytes.NewReader(b))
		if err != nil {
			return
		}
		if ft == fOverlay {
			decodeOverlayFrame(wireCodec{}, payload)
			return
		}
		v, err := decodeControl(ft, payload)
		if err != nil {
			return
		}
		if err := v.validate(); err != nil {
			t.Fatalf("decoded a %s that does not validate: %v", ft, err)
		}
		// A decoded message encodes again.
		if _, err := encodeControl(v); err != nil {
			t.Fatalf("%s: decoded but does not encode: %v", ft, err)
		}
	})
}
