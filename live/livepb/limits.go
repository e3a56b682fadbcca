package livepb

// MaxInline is the largest result a worker may send inside SubmitResult
// (SubmitResultRequest.data); larger ones are PUT to /blobs/ first. The
// master refuses larger inline data; the worker sends inline up to it.
const MaxInline = 64 << 10

// The session socket. A worker's session (its heart-beats and reports up,
// the master's commands down) is a WebSocket (RFC 6455) at SessionPath on
// the master's HTTPS port, opened with "Authorization: Bearer TOKEN" and
// the subprotocol SessionSubprotocol over HTTP/1.1. Each WebSocket message
// is one binary message: a WorkerMessage from the worker (the first one
// names the session Register returned), a MasterMessage from the master.
// A message is at most MaxSessionMessage bytes. The master ends a session
// with a close frame whose code says why (the Close* codes); anything else
// (a broken connection) is a failure of the network.
const (
	SessionPath        = "/volsched.live.v1.Master/SessionSocket"
	SessionSubprotocol = "volsched.live.v1"
	MaxSessionMessage  = 1 << 20

	// CloseSessionEnded: the session is unknown or was ended by the master
	// (it declared the worker DOWN, or the worker registered again):
	// register again.
	CloseSessionEnded = 4001
	// CloseFinished: the application is finished.
	CloseFinished = 4002
	// CloseInvalid: the worker sent a message the protocol does not allow
	// (not binary, not a WorkerMessage, for another session).
	CloseInvalid = 4003
)
