package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "example.org/m", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
			{Key: "vcs.modified", Value: "true"}, {Key: "-buildmode", Value: "exe"}}}
	var b strings.Builder
	readVersion(bi, true).write(&b)
	for _, want := range []string{"volsched v1.2.3\n", "module:      example.org/m\n", "commit:      0123abc, with uncommitted changes (dirty)\n",
		"commit time: 2026-01-02T03:04:05Z\n", "go:          go1.99 "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("version output lacks %q:\n%s", want, b.String())
		}
	}
	bi.Settings = bi.Settings[:2]
	b.Reset()
	readVersion(bi, true).write(&b)
	if !strings.Contains(b.String(), "commit:      0123abc\n") || strings.Contains(b.String(), "dirty") {
		t.Errorf("clean build:\n%s", b.String())
	}
	b.Reset()
	readVersion(nil, false).write(&b)
	if !strings.Contains(b.String(), "volsched unknown\n") || !strings.Contains(b.String(), "commit:      unknown (built without VCS") {
		t.Errorf("no build info:\n%s", b.String())
	}
	// The command itself: the test binary's own build info.
	out, e, code := runCLI(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "volsched ") || !strings.Contains(out, "module:      github.com/volsched/volsched\n") {
		t.Fatalf("volsched version: exit %d, stdout %q, stderr %q", code, out, e)
	}
}
