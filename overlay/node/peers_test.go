package node

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadPeers(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "peers")
	os.WriteFile(good, []byte("# the cluster\n10.0.0.11:7946\n\n  10.0.0.12:7946  \n[::1]:7946\n"), 0o644)
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("10.0.0.11:7946\n# x\n10.0.0.12\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("# nobody\n\n"), 0o644)
	for _, c := range []struct {
		arg  string
		want []string
		err  string
	}{
		{good, []string{"10.0.0.11:7946", "10.0.0.12:7946", "[::1]:7946"}, ""},
		{"127.0.0.1:1, 127.0.0.1:2,", []string{"127.0.0.1:1", "127.0.0.1:2"}, ""},
		{"127.0.0.1:1", []string{"127.0.0.1:1"}, ""},
		{"a,b", nil, `"a": want host:port`},
		{bad, nil, bad + ` line 3: "10.0.0.12": want host:port`},
		{empty, nil, "no address"},
		{",", nil, "no address"},
		{filepath.Join(dir, "missing"), nil, "want host:port"},
	} {
		got, err := ReadPeers(c.arg)
		switch {
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("ReadPeers(%q) = %q, %v; want %q", c.arg, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ReadPeers(%q) = %q, %v; want an error naming %q", c.arg, got, err, c.err)
		}
	}
}

func TestErrLine(t *testing.T) {
	for in, want := range map[string]string{"": "", "exit 1": "exit 1", "sh: x: not found\nmore\n": "sh: x: not found", "\nsecond": ""} {
		if got := (&TaskResult{Err: in}).ErrLine(); got != want {
			t.Errorf("ErrLine of %q = %q, want %q", in, got, want)
		}
	}
}
