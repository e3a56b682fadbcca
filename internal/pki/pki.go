// Package pki is the live system's own public-key infrastructure: a
// certificate authority made on first start in a state directory, the
// certificates it issues (a server's, or a node's for mutual TLS), the TLS
// configurations that use them (a client that pins the CA by its SHA-256
// fingerprint, or is given the CA file), and bearer tokens stored only as
// their hash.
//
// The runtime's master uses it for its HTTPS endpoint and the workers'
// tokens; the overlay's node daemons can use the same CA for mutual TLS
// between nodes (Issue with ClientAuth and ServerAuth, MutualServerConfig,
// MutualClientConfig).
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/volsched/volsched/internal/atomicfile"
)

// File names inside the state directory.
const (
	CAFile        = "ca.pem"
	CAKeyFile     = "ca-key.pem"
	ServerFile    = "server.pem"
	ServerKeyFile = "server-key.pem"
)

// CA is a certificate authority: its certificate and private key.
type CA struct {
	Cert    *x509.Certificate
	CertPEM []byte
	Key     *ecdsa.PrivateKey
}

// LoadOrCreateCA reads the CA of dir (ca.pem, ca-key.pem) or, when neither
// exists, creates one (ECDSA P-256, valid 20 years) named commonName; the
// key file is written with mode 0600. One file without the other is an
// error naming it.
func LoadOrCreateCA(dir, commonName string) (*CA, error) {
	certPath, keyPath := filepath.Join(dir, CAFile), filepath.Join(dir, CAKeyFile)
	_, errC := os.Stat(certPath)
	_, errK := os.Stat(keyPath)
	switch {
	case errC == nil && errK == nil:
		return loadCA(certPath, keyPath)
	case errC == nil:
		return nil, fmt.Errorf("%s exists but %s does not: want both or neither", certPath, keyPath)
	case errK == nil:
		return nil, fmt.Errorf("%s exists but %s does not: want both or neither", keyPath, certPath)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"volsched"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(20, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := atomicfile.Write(certPath, certPEM, 0o644); err != nil {
		return nil, err
	}
	return loadCA(certPath, keyPath)
}

// CopyCA gives directory to the CA of directory from (both files, the key
// with mode 0600), so that a master on to has from's fingerprint and its
// workers' pins stay valid. copied is false when to has that CA already;
// to having another CA, or only one of the two files, is an error.
func CopyCA(from, to string) (copied bool, err error) {
	if _, err := os.Stat(filepath.Join(from, CAFile)); errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("%s has no CA (%s: no master ran there): copy the tokens only (--ca=false), the workers then need the new master's fingerprint", from, CAFile)
	}
	src, err := loadCA(filepath.Join(from, CAFile), filepath.Join(from, CAKeyFile))
	if err != nil {
		return false, fmt.Errorf("the CA of %s: %v", from, err)
	}
	_, errC := os.Stat(filepath.Join(to, CAFile))
	_, errK := os.Stat(filepath.Join(to, CAKeyFile))
	if errC == nil || errK == nil {
		dst, err := loadCA(filepath.Join(to, CAFile), filepath.Join(to, CAKeyFile))
		if err != nil {
			return false, fmt.Errorf("the CA of %s: %v", to, err)
		}
		if Fingerprint(dst.Cert) != Fingerprint(src.Cert) {
			return false, fmt.Errorf("%s has another CA (fingerprint %s, not %s): its workers pin that one; use a new state directory", to, Fingerprint(dst.Cert), Fingerprint(src.Cert))
		}
		return false, nil
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return false, err
	}
	key, err := os.ReadFile(filepath.Join(from, CAKeyFile))
	if err != nil {
		return false, err
	}
	if err := atomicfile.Write(filepath.Join(to, CAKeyFile), key, 0o600); err != nil {
		return false, err
	}
	if err := atomicfile.Write(filepath.Join(to, CAFile), src.CertPEM, 0o644); err != nil {
		return false, err
	}
	return true, nil
}

func loadCA(certPath, keyPath string) (*CA, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, err
	}
	cert, err := ParseCertPEM(certPEM, certPath)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("%s: not a CA certificate", certPath)
	}
	key, err := readKey(keyPath)
	if err != nil {
		return nil, err
	}
	if !key.PublicKey.Equal(cert.PublicKey) {
		return nil, fmt.Errorf("%s does not hold the key of %s", keyPath, certPath)
	}
	return &CA{Cert: cert, CertPEM: certPEM, Key: key}, nil
}

// Usage says what an issued certificate is for.
type Usage uint8

const (
	ServerAuth Usage = 1 << iota // a TLS server (hosts in its SANs)
	ClientAuth                   // a TLS client (mutual TLS)
)

// Issue makes a certificate for commonName signed by the CA, valid for
// the given hosts (DNS names or IP addresses) and usages, with a fresh
// ECDSA P-256 key; the returned tls.Certificate carries the CA in its
// chain.
func (ca *CA) Issue(commonName string, hosts []string, usage Usage, validity time.Duration) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: commonName, Organization: []string{"volsched"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	if usage&ServerAuth != 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if usage&ClientAuth != 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.Cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

// DefaultHosts are the names a server certificate covers besides those
// asked for: localhost, the loopback addresses and this machine's host
// name.
func DefaultHosts() []string {
	h := []string{"localhost", "127.0.0.1", "::1"}
	if n, err := os.Hostname(); err == nil && n != "" {
		h = append(h, n)
	}
	return h
}

// LoadOrCreateServer reads dir's server certificate (server.pem,
// server-key.pem) if it was issued by ca, is valid for 30 more days and
// covers every host of hosts; otherwise it issues a new one (valid 2
// years) and writes it.
func LoadOrCreateServer(dir string, ca *CA, hosts []string) (tls.Certificate, error) {
	certPath, keyPath := filepath.Join(dir, ServerFile), filepath.Join(dir, ServerKeyFile)
	if c, err := tls.LoadX509KeyPair(certPath, keyPath); err == nil && c.Leaf != nil {
		ok := c.Leaf.CheckSignatureFrom(ca.Cert) == nil && time.Now().Add(30*24*time.Hour).Before(c.Leaf.NotAfter)
		for _, h := range hosts {
			if ok && c.Leaf.VerifyHostname(h) != nil {
				ok = false
			}
		}
		if ok {
			if len(c.Certificate) == 1 {
				c.Certificate = append(c.Certificate, ca.Cert.Raw)
			}
			return c, nil
		}
	}
	c, err := ca.Issue("volsched master", hosts, ServerAuth, 2*365*24*time.Hour)
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := WriteKeyPair(certPath, keyPath, c); err != nil {
		return tls.Certificate{}, err
	}
	return c, nil
}

// WriteKeyPair writes cert's ECDSA private key to keyPath (PEM "EC PRIVATE
// KEY", mode 0600) and its chain to certPath (PEM "CERTIFICATE" blocks,
// leaf first, mode 0644), each through a synced temporary file and a
// rename; the key first, so that a certificate on disk has its key.
func WriteKeyPair(certPath, keyPath string, cert tls.Certificate) error {
	key, ok := cert.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return fmt.Errorf("%s: private key of type %T: want ECDSA", keyPath, cert.PrivateKey)
	}
	if err := writeKey(keyPath, key); err != nil {
		return err
	}
	var certPEM []byte
	for _, der := range cert.Certificate {
		certPEM = append(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return atomicfile.Write(certPath, certPEM, 0o644)
}

// Fingerprint is the SHA-256 of a certificate's DER encoding, 64 lowercase
// hex digits: what a client pins.
func Fingerprint(c *x509.Certificate) string {
	s := sha256.Sum256(c.Raw)
	return hex.EncodeToString(s[:])
}

// ParseFingerprint reads a fingerprint as printed by Fingerprint, also
// accepting upper case, colons between bytes and a "sha256:" prefix.
func ParseFingerprint(s string) (string, error) {
	f := strings.ToLower(strings.TrimSpace(s))
	f = strings.TrimPrefix(f, "sha256:")
	f = strings.ReplaceAll(f, ":", "")
	if b, err := hex.DecodeString(f); err != nil || len(b) != sha256.Size {
		return "", fmt.Errorf("fingerprint %q: want the 64 hex digits of a SHA-256 (as the master prints it)", s)
	}
	return f, nil
}

// ParseCertPEM reads the first certificate of a PEM file.
func ParseCertPEM(data []byte, source string) (*x509.Certificate, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("%s: no PEM CERTIFICATE block", source)
		}
		if b.Type == "CERTIFICATE" {
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", source, err)
			}
			return c, nil
		}
	}
}

// ServerConfig is the TLS configuration of a server presenting cert (TLS
// 1.3 only, HTTP/2 and HTTP/1.1 offered).
func ServerConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13, NextProtos: []string{"h2", "http/1.1"}}
}

// MutualServerConfig also requires a client certificate issued by ca.
func MutualServerConfig(cert tls.Certificate, ca *x509.Certificate) *tls.Config {
	c := ServerConfig(cert)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	return c
}

// ClientConfigCA trusts the CA in caPEM and checks the server's host name
// as usual.
func ClientConfigCA(caPEM []byte, source string) (*tls.Config, error) {
	ca, err := ParseCertPEM(caPEM, source)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13, NextProtos: []string{"h2", "http/1.1"}}, nil
}

// ErrFingerprint is returned by a pinned client when the server's chain
// holds no certificate with the pinned fingerprint.
var ErrFingerprint = errors.New("the server's certificate chain does not hold the pinned CA fingerprint")

// ClientConfigPinned trusts the CA whose SHA-256 fingerprint is fp (as
// printed by the master): the server must present a chain holding that CA
// and a leaf it signed for server use. The host name is not checked (the
// pin identifies the master, as an SSH host key does), so a worker can
// reach it by any address.
func ClientConfigPinned(fp string) (*tls.Config, error) {
	pin, err := ParseFingerprint(fp)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		NextProtos:         []string{"h2", "http/1.1"},
		InsecureSkipVerify: true, // replaced by VerifyConnection below
		VerifyConnection: func(cs tls.ConnectionState) error {
			return verifyPinned(cs.PeerCertificates, pin, x509.ExtKeyUsageServerAuth)
		},
	}, nil
}

// MutualClientConfig presents cert and trusts a server whose certificate
// ca issued (the host name is not checked: the CA identifies the cluster).
func MutualClientConfig(cert tls.Certificate, ca *x509.Certificate) *tls.Config {
	fp := Fingerprint(ca)
	return &tls.Config{
		Certificates:       []tls.Certificate{cert},
		MinVersion:         tls.VersionTLS13,
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			return verifyPinned(append(cs.PeerCertificates, ca), fp, x509.ExtKeyUsageServerAuth)
		},
	}
}

func verifyPinned(chain []*x509.Certificate, pin string, usage x509.ExtKeyUsage) error {
	if len(chain) == 0 {
		return errors.New("the server presented no certificate")
	}
	var root *x509.Certificate
	for _, c := range chain {
		if Fingerprint(c) == pin {
			root = c
			break
		}
	}
	if root == nil {
		return ErrFingerprint
	}
	roots := x509.NewCertPool()
	roots.AddCert(root)
	if chain[0] == root { // the pin is the leaf itself
		return nil
	}
	_, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}

// NewToken returns a fresh bearer token: 32 random bytes, base64url.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// HashToken is what is stored of a token: its SHA-256, hex. Tokens are 256
// random bits, so a fast hash is enough (no password stretching needed).
func HashToken(tok string) string {
	s := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(s[:])
}

// TokenMatches compares a presented token with a stored hash in constant
// time.
func TokenMatches(tok, hash string) bool {
	h := HashToken(tok)
	return subtle.ConstantTimeCompare([]byte(h), []byte(hash)) == 1
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return n
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

func readKey(path string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(data)
	if b == nil || b.Type != "EC PRIVATE KEY" {
		return nil, fmt.Errorf("%s: no PEM EC PRIVATE KEY block", path)
	}
	k, err := x509.ParseECPrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return k, nil
}

// HostsCovered reports whether cert is valid for every host of hosts.
func HostsCovered(cert *x509.Certificate, hosts []string) bool {
	return !slices.ContainsFunc(hosts, func(h string) bool { return cert.VerifyHostname(h) != nil })
}
