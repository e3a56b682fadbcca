package master

import (
	"net"
	"syscall"
	"time"

	"github.com/volsched/volsched/live/beat"
	"github.com/volsched/volsched/live/livepb"
)

// Heart-beats by UDP (docs/runtime.md, "Heart-beats by UDP"): a worker
// whose datagrams arrive sends its plain heart-beats (nothing changed) as
// live/beat datagrams instead of on its socket. One goroutine reads them
// all, a batch every beatBatch: the datagrams of that time wait in the
// socket's buffer and are read one system call each, with no goroutine
// woken per heart-beat. A heart-beat that changes something (the first of
// a session, a new state) still comes on the socket, reliably.

// beatBatch: the reader drains the UDP socket, then sleeps this long. A
// heart-beat is noted at most this late; the machine is told at its next
// tick anyway (half a heart-beat period or slot).
const beatBatch = 20 * time.Millisecond

// beatBatchFull: a drain that read this many datagrams is followed by
// another at once, not by a sleep: the socket's buffer (1 MiB asked, the
// system may grant less: net.core.rmem_max) must not overflow with more
// workers than 10,000. A datagram lost that way is a heart-beat lost.
const beatBatchFull = 256

// beatFallback: a session in UDP mode whose last heart-beat is older than
// this goes back to the socket (its datagrams stopped: a firewall, a lossy
// path): 2.5 periods, at least 10 batches, before DownAfter would declare
// it DOWN (at most half of it).
func (s *Server) beatFallback() time.Duration {
	return min(max(s.opt.Heartbeat*5/2, 10*beatBatch), s.opt.DownAfter/2)
}

// listenBeats opens the UDP socket of the heart-beats on the TCP
// listener's address (same port).
func (s *Server) listenBeats(tcp net.Addr) {
	ta, ok := tcp.(*net.TCPAddr)
	if !ok || s.opt.NoUDPBeats {
		return
	}
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: ta.IP, Port: ta.Port, Zone: ta.Zone})
	if err != nil {
		s.log.Warn("no heart-beats by UDP: workers heart-beat on their sockets", "addr", ta.String(), "err", err)
		return
	}
	c.SetReadBuffer(1 << 20) // 10,000 workers: ~200 datagrams per batch
	s.udp = c
}

// readBeats reads the heart-beat datagrams until the socket is closed.
func (s *Server) readBeats() {
	rc, err := s.udp.SyscallConn()
	if err != nil {
		s.log.Error("heart-beats by UDP stopped", "err", err)
		return
	}
	buf := make([]byte, 2*beat.Size)
	for {
		// Drain the socket: read until nothing is left (EAGAIN), waiting
		// for the poller only when the first read finds nothing.
		got := 0
		err := rc.Read(func(fd uintptr) bool {
			for {
				n, err := syscall.Read(int(fd), buf) // one datagram; its sender does not matter (no allocation)
				switch {
				case err == syscall.EINTR:
					continue
				case err == syscall.EAGAIN:
					return got > 0
				case err != nil:
					return true
				}
				got++
				s.beatDatagram(buf[:n])
			}
		})
		if err != nil {
			return // closed
		}
		if got < beatBatchFull {
			time.Sleep(beatBatch)
		} // else: many arrive; read again at once, before the socket's buffer fills
	}
}

// beatDatagram handles one datagram: refused unless it is a datagram of a
// current session, signed with its key, newer than the last one and in
// the state the master knows (a change comes on the socket).
func (s *Server) beatDatagram(b []byte) {
	d, ok := beat.Parse(b)
	if !ok {
		s.met.beatsRefused.Inc()
		return
	}
	v, ok := s.beats.Load(d.Session)
	if !ok {
		s.met.beatsRefused.Inc()
		return
	}
	ss := v.(*session)
	if ss.dead.Load() || !ss.beatVerifier.Valid(b) || d.Seq <= ss.beatSeq.Load() {
		s.met.beatsRefused.Inc()
		return
	}
	ss.beatSeq.Store(d.Seq)
	if !ss.quiet(livepb.State(d.State)) {
		return // not what the master knows yet: the socket's message decides
	}
	s.met.udpHeartbeats.Inc()
	s.heardQuiet(ss)
	if !ss.beatOff.Load() && !ss.beatUDP.Swap(true) {
		s.post(func() { s.sendBeatMode(ss, true) })
	}
}

// checkBeats (loop, at each tick) sends back to the socket the sessions
// in UDP mode whose heart-beats stopped arriving.
func (s *Server) checkBeats(ss *session, now int64) {
	if ss.beatUDP.Load() && !ss.beatOff.Load() && time.Duration(now-ss.heard.Load()) > s.beatFallback() {
		ss.beatOff.Store(true)
		ss.beatUDP.Store(false)
		s.met.beatFallbacks.Inc()
		s.log.Warn("heart-beat datagrams stopped arriving: back to the socket", "worker", ss.name)
		s.sendBeatMode(ss, false)
	}
}

// sendBeatMode tells the worker of ss how to heart-beat (loop).
func (s *Server) sendBeatMode(ss *session, udp bool) {
	if s.sessions[ss.id] != ss {
		return
	}
	s.queue(ss, &livepb.MasterMessage{Msg: &livepb.MasterMessage_BeatMode{BeatMode: &livepb.BeatMode{Udp: udp}}})
}
