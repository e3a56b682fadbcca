package livepb

// MaxInline is the largest result a worker may send inside SubmitResult
// (SubmitResultRequest.data); larger ones are PUT to /blobs/ first. The
// master refuses larger inline data; the worker sends inline up to it.
const MaxInline = 64 << 10
