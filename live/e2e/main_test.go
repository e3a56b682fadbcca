package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// volschedBinary builds the volsched command once for the tests that run
// it as a subprocess (the master killed with SIGKILL, workers killed).
func volschedBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "volsched-e2e-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "volsched")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/volsched/volsched/cmd/volsched").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}
