// Package livepb is the generated protobuf and Connect code of the live
// protocol (live.proto). It is committed: users need no code generator.
//
// To regenerate (protoc 3.21 from Debian's protobuf-compiler, and the two
// plugins at the versions of go.mod):
//
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go install connectrpc.com/connect/cmd/protoc-gen-connect-go@v1.21.1
//	go generate ./live/livepb
package livepb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --connect-go_out=. --connect-go_opt=paths=source_relative live.proto
