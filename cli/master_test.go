package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/master"
)

// TestMasterRefusesBadFlags: each bad flag of volsched master is refused
// before anything starts (exit 2, a message naming the flag and what is
// wanted), with a valid application.
func TestMasterRefusesBadFlags(t *testing.T) {
	app := filepath.Join("..", "examples", "jacobi")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--ncom", "0"}, "--ncom 0: want ≥ 1"},
		{[]string{"--slot", "-1s"}, "--slot -1s: want a duration > 0"},
		{[]string{"--heartbeat", "0s"}, "--heartbeat 0s: want a duration > 0"},
		{[]string{"--down-after", "-1s"}, "--down-after -1s: want more than --heartbeat"},
		{[]string{"--listen="}, "--listen: empty"},
		{[]string{"--state="}, "--state: none given"},
		{[]string{"--down-after", "1ns"}, "--down-after 1ns: want more than --heartbeat"},
		{[]string{"--rate", "-3"}, "--rate -3: want ≥ 0"},
		{[]string{"--replicas", "65"}, "--replicas 65: want 0..64"},
		{[]string{"--heuristic", "FOO"}, `"--heuristic" flag: heuristic "FOO": want one of`},
	}
	for _, c := range cases {
		args := append([]string{"master", "--app", app, "--state", filepath.Join(t.TempDir(), "s"), "--listen", "127.0.0.1:0"}, c.args...)
		_, stderr, code := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestTokenCopy: 'master token copy' gives a new state directory the
// valid tokens of another (not its revoked ones) and its CA, so that the
// same workers with the same --fingerprint are accepted; a name the new
// directory has a token for keeps it; copying again changes nothing; a
// directory with another CA, a --from without state or without a CA are
// refused with a message naming them.
func TestTokenCopy(t *testing.T) {
	old, next := filepath.Join(t.TempDir(), "old"), filepath.Join(t.TempDir(), "next")
	tokA, _, code := runCLI(t, "", "master", "token", "add", "a", "--state", old)
	if code != 0 {
		t.Fatalf("token add: exit %d", code)
	}
	runCLI(t, "", "master", "token", "add", "gone", "--state", old)
	runCLI(t, "", "master", "token", "revoke", "gone", "--state", old)
	// Without a CA in --from (no master ran there): refused, unless --ca=false.
	if _, stderr, code := runCLI(t, "", "master", "token", "copy", "--from", old, "--state", next); code != 1 || !strings.Contains(stderr, "no CA") {
		t.Fatalf("copy from a state without a CA: exit %d, %q", code, stderr)
	}
	ca, err := pki.LoadOrCreateCA(old, "test CA")
	if err != nil {
		t.Fatal(err)
	}
	tokB, _, _ := runCLI(t, "", "master", "token", "add", "b", "--state", next) // next's own b
	tokBOld, _, _ := runCLI(t, "", "master", "token", "add", "b", "--state", old)
	for i := 0; i < 2; i++ { // twice: the second changes nothing
		_, stderr, code := runCLI(t, "", "master", "token", "copy", "--from", old, "--state", next)
		if code != 0 {
			t.Fatalf("copy #%d: exit %d, %q", i+1, code, stderr)
		}
		want := "1 token(s) copied, 1 name(s) kept their own"
		if i == 1 {
			want = "0 token(s) copied, 2 name(s) kept their own"
		}
		if !strings.Contains(stderr, want) {
			t.Errorf("copy #%d: %q, want %q", i+1, stderr, want)
		}
	}
	db, err := master.OpenDB(next)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := db.Tokens()
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]string{}
	for h, n := range toks {
		hashes[n] = h
	}
	if hashes["a"] != pki.HashToken(strings.TrimSpace(tokA)) {
		t.Error("a's token was not copied")
	}
	if hashes["b"] != pki.HashToken(strings.TrimSpace(tokB)) || hashes["b"] == pki.HashToken(strings.TrimSpace(tokBOld)) {
		t.Error("b did not keep next's own token")
	}
	if _, ok := hashes["gone"]; ok {
		t.Error("a revoked token was copied")
	}
	got, err := pki.LoadOrCreateCA(next, "x")
	if err != nil || pki.Fingerprint(got.Cert) != pki.Fingerprint(ca.Cert) {
		t.Fatalf("next's CA: %v, fingerprint differs from old's", err)
	}
	// A directory with another CA is refused.
	other := filepath.Join(t.TempDir(), "other")
	if _, err := pki.LoadOrCreateCA(other, "another"); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "", "master", "token", "copy", "--from", old, "--state", other); code != 1 || !strings.Contains(stderr, "has another CA") {
		t.Errorf("copy into a directory with another CA: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "master", "token", "copy", "--from", filepath.Join(t.TempDir(), "none"), "--state", next); code != 1 || !strings.Contains(stderr, "no master state there") {
		t.Errorf("copy from nothing: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "master", "token", "copy", "--from", old, "--state", old); code != 2 || !strings.Contains(stderr, "the same directory") {
		t.Errorf("copy into itself: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "master", "token", "copy", "--state", next); code != 2 || !strings.Contains(stderr, "--from is required") {
		t.Errorf("copy without --from: exit %d, %q", code, stderr)
	}
}
