package pki

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// handshake runs one TLS connection over loopback and returns the
// client's handshake error.
func handshake(t *testing.T, srv, cli *tls.Config) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.(*tls.Conn).Handshake()
		io.Copy(io.Discard, c)
		c.Close()
	}()
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", ln.Addr().String(), cli)
	if err != nil {
		return err
	}
	c.Close()
	return nil
}

func TestCAPinAndReload(t *testing.T) {
	dir := t.TempDir()
	ca, err := LoadOrCreateCA(dir, "test CA")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, CAKeyFile)); st.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v, want 0600", st.Mode().Perm())
	}
	ca2, err := LoadOrCreateCA(dir, "ignored")
	if err != nil || Fingerprint(ca2.Cert) != Fingerprint(ca.Cert) {
		t.Fatalf("reload: %v, fingerprints %s %s", err, Fingerprint(ca2.Cert), Fingerprint(ca.Cert))
	}
	srv, err := LoadOrCreateServer(dir, ca, DefaultHosts())
	if err != nil {
		t.Fatal(err)
	}
	srv2, err := LoadOrCreateServer(dir, ca, DefaultHosts())
	if err != nil || srv2.Leaf.SerialNumber.Cmp(srv.Leaf.SerialNumber) != 0 {
		t.Fatalf("server certificate not reused: %v", err)
	}
	srv3, _ := LoadOrCreateServer(dir, ca, append(DefaultHosts(), "master.example"))
	if srv3.Leaf.SerialNumber.Cmp(srv.Leaf.SerialNumber) == 0 || srv3.Leaf.VerifyHostname("master.example") != nil {
		t.Fatal("a new host did not reissue the server certificate")
	}

	pinned, err := ClientConfigPinned(strings.ToUpper(Fingerprint(ca.Cert)))
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, ServerConfig(srv), pinned); err != nil {
		t.Fatalf("pinned client refused the right server: %v", err)
	}
	withCA, err := ClientConfigCA(ca.CertPEM, "ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	withCA.ServerName = "localhost"
	if err := handshake(t, ServerConfig(srv), withCA); err != nil {
		t.Fatalf("CA client refused the right server: %v", err)
	}

	// Another CA's server: refused by both.
	other, _ := LoadOrCreateCA(t.TempDir(), "other")
	osrv, _ := other.Issue("impostor", DefaultHosts(), ServerAuth, time.Hour)
	if err := handshake(t, ServerConfig(osrv), pinned); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Fatalf("pinned client accepted another CA's server: %v", err)
	}
	if err := handshake(t, ServerConfig(osrv), withCA); err == nil {
		t.Fatal("CA client accepted another CA's server")
	}
	// A leaf the right CA issued for clients only: refused for server use.
	cli, _ := ca.Issue("client", DefaultHosts(), ClientAuth, time.Hour)
	if err := handshake(t, ServerConfig(cli), pinned); err == nil {
		t.Fatal("pinned client accepted a client-only certificate as server")
	}
}

func TestMutualTLS(t *testing.T) {
	ca, _ := LoadOrCreateCA(t.TempDir(), "cluster")
	a, _ := ca.Issue("node-a", DefaultHosts(), ServerAuth|ClientAuth, time.Hour)
	b, _ := ca.Issue("node-b", DefaultHosts(), ServerAuth|ClientAuth, time.Hour)
	if err := handshake(t, MutualServerConfig(a, ca.Cert), MutualClientConfig(b, ca.Cert)); err != nil {
		t.Fatalf("mutual TLS between two nodes: %v", err)
	}
	other, _ := LoadOrCreateCA(t.TempDir(), "other")
	x, _ := other.Issue("x", DefaultHosts(), ServerAuth|ClientAuth, time.Hour)
	if err := handshake(t, MutualServerConfig(a, ca.Cert), MutualClientConfig(x, other.Cert)); err == nil {
		t.Fatal("a node of another CA connected")
	}
}

func TestBrokenStateRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, CAFile), []byte("x"), 0o644)
	if _, err := LoadOrCreateCA(dir, "x"); err == nil || !strings.Contains(err.Error(), CAKeyFile) {
		t.Fatalf("half a CA: %v", err)
	}
	if _, err := ParseFingerprint("abc"); err == nil {
		t.Fatal("short fingerprint accepted")
	}
}

func TestTokens(t *testing.T) {
	a, _ := NewToken()
	b, _ := NewToken()
	if a == b || len(a) < 40 {
		t.Fatalf("tokens %q %q", a, b)
	}
	h := HashToken(a)
	if strings.Contains(h, a) || !TokenMatches(a, h) || TokenMatches(b, h) {
		t.Fatal("token hash")
	}
	if !errors.Is(ErrFingerprint, ErrFingerprint) {
		t.Fatal()
	}
}
