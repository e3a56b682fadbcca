package cli

import (
	"crypto/tls"
	"log/slog"
	"os"
	"strings"

	"github.com/volsched/volsched/internal/pki"
)

// newLogger makes the live commands' structured logger (standard error).
func newLogger(level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("--log-level %q: want debug, info, warn or error", level)
	}
	o := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, o)), nil
	}
	return nil, usagef("--log-format %q: want text or json", format)
}

// clientTLS is a client's trust: a pinned fingerprint or a CA file.
func clientTLS(fingerprint, caFile string) (*tls.Config, error) {
	switch {
	case fingerprint != "" && caFile != "":
		return nil, usagef("--fingerprint and --ca both given: want one")
	case fingerprint != "":
		c, err := pki.ClientConfigPinned(fingerprint)
		if err != nil {
			return nil, usagef("--fingerprint: %v", err)
		}
		return c, nil
	case caFile != "":
		data, err := os.ReadFile(caFile)
		if err != nil {
			return nil, usagef("--ca %s: %v", caFile, err)
		}
		c, err := pki.ClientConfigCA(data, caFile)
		if err != nil {
			return nil, usagef("--ca: %v", err)
		}
		return c, nil
	}
	return nil, usagef("no trust for the master's certificate: give --fingerprint FP (the master prints it, and writes it to STATE/fingerprint) or --ca FILE (STATE/ca.pem)")
}

// tokenValue reads --token, or the file of --token-file, or $VOLSCHED_TOKEN.
func tokenValue(token, file string) (string, error) {
	switch {
	case token != "" && file != "":
		return "", usagef("--token and --token-file both given: want one")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", usagef("--token-file %s: %v", file, err)
		}
		return strings.TrimSpace(string(b)), nil
	case token != "":
		return token, nil
	case os.Getenv("VOLSCHED_TOKEN") != "":
		return os.Getenv("VOLSCHED_TOKEN"), nil
	}
	return "", usagef("no token: give --token, --token-file or $VOLSCHED_TOKEN (`volsched master token add NAME --state DIR` prints one)")
}

func masterURL(s string) (string, error) {
	if s == "" {
		return "", usagef("--master is empty, want https://HOST:PORT")
	}
	if !strings.HasPrefix(s, "https://") {
		if strings.Contains(s, "://") {
			return "", usagef("--master %q: want an https:// URL", s)
		}
		s = "https://" + s
	}
	return strings.TrimRight(s, "/"), nil
}
