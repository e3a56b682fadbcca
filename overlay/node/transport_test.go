package node

import (
	"net"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/pki"
)

// TestFrameAfterPeerRestartArrives: a peer stopped and started again on
// the same address gets the first frame sent to it afterwards (the
// connection to its previous run, which it closed, is not written on:
// that frame would be lost, and with it, in TestFirstNodeRestartRejoins,
// the welcome of a restarted node's join).
func TestFrameAfterPeerRestartArrives(t *testing.T) {
	cr := sharedCreds(t)
	lns, addrs := listeners(t, 2)
	start := func(ln net.Listener, self string, inbox chan inbound) *transport {
		tr := newTransport(self, ln, pki.MutualServerConfig(cr.cert, cr.ca), pki.MutualClientConfig(cr.cert, cr.ca), defaultCodec(), inbox, t.Logf, &counters{})
		tr.serve()
		return tr
	}
	receive := func(inbox chan inbound, what string) {
		t.Helper()
		select {
		case in := <-inbox:
			if l, ok := in.ctl.(*Leave); !ok || l.Node != addrs[0] || in.from != addrs[0] {
				t.Fatalf("%s: got %+v, want the leave of %s", what, in, addrs[0])
			}
		case <-time.After(5 * time.Second * waitSlack):
			t.Fatalf("%s: not received", what)
		}
	}
	a := start(lns[0], addrs[0], make(chan inbound, 16))
	defer a.close()
	frame, err := encodeControl(&Leave{Node: addrs[0]})
	if err != nil {
		t.Fatal(err)
	}
	inbox := make(chan inbound, 16)
	b := start(lns[1], addrs[1], inbox)
	a.send(addrs[1], frame)
	receive(inbox, "frame before the restart")
	b.close()
	ln, err := net.Listen("tcp", addrs[1])
	if err != nil {
		t.Fatal(err)
	}
	inbox = make(chan inbound, 16)
	b = start(ln, addrs[1], inbox)
	defer b.close()
	// (A restarted daemon takes longer than this to be up: the end of the
	// old connection has reached a by then.)
	time.Sleep(100 * time.Millisecond)
	a.send(addrs[1], frame)
	receive(inbox, "first frame after the restart")
}
