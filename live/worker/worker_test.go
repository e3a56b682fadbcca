package worker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/volsched/volsched/internal/blob"
	"github.com/volsched/volsched/internal/pki"
	"github.com/volsched/volsched/live/manifest"
)

func TestCmdProbe(t *testing.T) {
	ctx := context.Background()
	if !(&CmdProbe{Cmd: "exit 0"}).Reclaimed(ctx) || (&CmdProbe{Cmd: "exit 3"}).Reclaimed(ctx) {
		t.Fatal("CmdProbe: reclaimed exactly while the command exits 0")
	}
}

func TestCPUProbeReads(t *testing.T) {
	if _, _, err := readProcStat(); err != nil {
		t.Skipf("no /proc/stat: %v", err)
	}
	p := &CPUProbe{Threshold: 2} // never above 100 % of the CPUs
	p.Reclaimed(context.Background())
	if p.Reclaimed(context.Background()) {
		t.Fatal("threshold 2 exceeded")
	}
	if ours := ourCPU(); len(ours) == 0 {
		t.Fatal("ourCPU found no process of ours")
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	tlsCfg, _ := pki.ClientConfigPinned(strings.Repeat("ab", 32))
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Token: "t", Cache: t.TempDir(), TLS: tlsCfg}, "--master is empty"},
		{Options{Master: "http://x", Token: "t", Cache: t.TempDir(), TLS: tlsCfg}, "https://"},
		{Options{Master: "https://x", Cache: t.TempDir(), TLS: tlsCfg}, "--token is empty"},
		{Options{Master: "https://x", Token: "t", Cache: t.TempDir()}, "no TLS trust"},
	} {
		if _, err := New(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want %q", c.o, err, c.want)
		}
	}
}

// TestProgramPathVerifies: the program is checked by hash before each use;
// a tampered copy is replaced from the verified blob, a tampered blob
// refused.
func TestProgramPathVerifies(t *testing.T) {
	tlsCfg, _ := pki.ClientConfigPinned(strings.Repeat("ab", 32))
	w, err := New(Options{Master: "https://x", Token: "t", Cache: t.TempDir(), TLS: tlsCfg})
	if err != nil {
		t.Fatal(err)
	}
	prog := []byte("#!/bin/sh\necho ok\n")
	d, _ := w.blobs.Put(prog)
	p, err := w.programPath(d, "")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("#!/bin/sh\necho evil\n"), 0o755)
	p2, err := w.programPath(d, "")
	if b, _ := os.ReadFile(p2); err != nil || string(b) != string(prog) {
		t.Fatalf("tampered program copy used: %q, %v", b, err)
	}
	os.WriteFile(w.blobs.Path(d), []byte("evil"), 0o644)
	os.Remove(p2)
	if _, err := w.programPath(d, ""); err == nil {
		t.Fatal("tampered program blob accepted")
	}
	// A directory program: unpacked and its tree re-hashed.
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "bin"), 0o755)
	os.WriteFile(filepath.Join(src, "bin", "run"), prog, 0o755)
	packed, _ := manifest.Pack(src)
	dd, _ := w.blobs.Put(packed)
	e, err := w.programPath(dd, "bin/run")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(filepath.Dir(e), "extra"), []byte("x"), 0o644)
	if _, err := w.programPath(dd, "bin/run"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e), "extra")); err == nil {
		t.Fatal("a modified program tree was used without re-unpacking")
	}
	if blob.Sum(packed) != dd {
		t.Fatal()
	}
}
