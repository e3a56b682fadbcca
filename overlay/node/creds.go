package node

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/volsched/volsched/internal/atomicfile"
	"github.com/volsched/volsched/internal/pki"
)

// Credentials of a node or a client, as `volsched node ca issue` writes
// them in a directory.
const (
	CertFile = "node.pem"
	KeyFile  = "node-key.pem"
	CAFile   = "ca.pem"
)

// InitCA creates the cluster's certificate authority in dir (or loads the
// one already there) and returns the CA certificate's SHA-256 fingerprint.
func InitCA(dir string) (string, error) {
	ca, err := pki.LoadOrCreateCA(dir, "volsched overlay CA")
	if err != nil {
		return "", err
	}
	return pki.Fingerprint(ca.Cert), nil
}

// Issue makes credentials for name (a node's advertised address, or an
// operator's name) with the CA of caDir, valid for hosts, and writes them
// to out (node.pem, node-key.pem, ca.pem). They serve both for listening
// and for dialing (mutual TLS).
func Issue(caDir, name string, hosts []string, validity time.Duration, out string) error {
	if name == "" {
		return errors.New("name: empty: want the node's address or a client's name")
	}
	if _, err := os.Stat(filepath.Join(caDir, pki.CAKeyFile)); err != nil {
		return fmt.Errorf("CA directory %s: %w (run `volsched node ca init` first)", caDir, err)
	}
	ca, err := pki.LoadOrCreateCA(caDir, "volsched overlay CA")
	if err != nil {
		return err
	}
	if validity <= 0 {
		validity = 2 * 365 * 24 * time.Hour
	}
	if len(hosts) == 0 {
		hosts = pki.DefaultHosts()
	}
	cert, err := ca.Issue(name, hosts, pki.ServerAuth|pki.ClientAuth, validity)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return err
	}
	if err := pki.WriteKeyPair(filepath.Join(out, CertFile), filepath.Join(out, KeyFile), cert); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(out, CAFile), ca.CertPEM, 0o644)
}

// LoadCredentials reads the credentials Issue wrote in dir.
func LoadCredentials(dir string) (tls.Certificate, *x509.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile))
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("credentials in %s: %w", dir, err)
	}
	p := filepath.Join(dir, CAFile)
	caPEM, err := os.ReadFile(p)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("credentials in %s: %w", dir, err)
	}
	ca, err := pki.ParseCertPEM(caPEM, p)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return cert, ca, nil
}
