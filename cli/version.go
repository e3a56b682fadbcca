package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildVersion is what `volsched version` reports, from the build
// information Go records in the binary.
type buildVersion struct {
	Module     string // module path
	Version    string // module version: vX.Y.Z from 'go install …@version', a pseudo-version or (devel)
	Go         string // toolchain
	Commit     string // VCS revision; empty when the build has none
	CommitTime string // VCS commit time (RFC 3339)
	Modified   string // "true" when the working tree had uncommitted changes
}

// readVersion extracts the version from build info (ok false: none).
func readVersion(bi *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{Module: "github.com/volsched/volsched", Version: "unknown", Go: runtime.Version()}
	if !ok || bi == nil {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value
		}
	}
	return v
}

func (v buildVersion) write(w io.Writer) {
	fmt.Fprintf(w, "volsched %s\n", v.Version)
	fmt.Fprintf(w, "module:      %s\n", v.Module)
	switch {
	case v.Commit == "":
		fmt.Fprintf(w, "commit:      unknown (built without VCS information: outside a git checkout, or with -buildvcs=false)\n")
	case v.Modified == "true":
		fmt.Fprintf(w, "commit:      %s, with uncommitted changes (dirty)\n", v.Commit)
	default:
		fmt.Fprintf(w, "commit:      %s\n", v.Commit)
	}
	if v.CommitTime != "" {
		fmt.Fprintf(w, "commit time: %s\n", v.CommitTime)
	}
	fmt.Fprintf(w, "go:          %s %s/%s\n", v.Go, runtime.GOOS, runtime.GOARCH)
}

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the module version and the commit the binary was built from",
		Long: `version prints what Go recorded when it built this binary: the module
version (vX.Y.Z when installed with 'go install …@vX.Y.Z', a pseudo-version
or "(devel)" when built from a checkout), the git commit, whether the
working tree had uncommitted changes, the commit's time and the Go
toolchain. Go records no build time (its builds are reproducible): the
commit time dates the code.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			readVersion(debug.ReadBuildInfo()).write(cmd.OutOrStdout())
			return nil
		},
	})
}

// versionString is the version in one phrase, for pages and logs:
// "(devel), commit 5023cc8 (dirty)".
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	v := readVersion(bi, ok)
	s := v.Version
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += ", commit " + c
		if v.Modified == "true" {
			s += " (with uncommitted changes)"
		}
	}
	return s
}
