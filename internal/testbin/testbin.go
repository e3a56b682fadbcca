// Package testbin builds the volsched command once per test process, for
// the tests that run it as real processes (daemons, masters and workers
// killed with SIGKILL, the demo). It is imported by tests only.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
)

// Volsched returns the path of a volsched binary built from this module,
// building it on the first call; it fails the test if the build fails.
func Volsched(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		dir, e := os.MkdirTemp("", "volsched-testbin-")
		if e != nil {
			err = e
			return
		}
		path = filepath.Join(dir, "volsched")
		if out, e := exec.Command("go", "build", "-o", path, "github.com/volsched/volsched/cmd/volsched").CombinedOutput(); e != nil {
			err = fmt.Errorf("go build: %v\n%s", e, out)
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Main runs the tests of a package (from its TestMain) and removes the
// binary afterwards.
func Main(m *testing.M) {
	code := m.Run()
	if path != "" {
		os.RemoveAll(filepath.Dir(path))
	}
	os.Exit(code)
}
