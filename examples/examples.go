// Package examples embeds the example applications of the live runtime
// (jacobi: block Jacobi with a checkable answer; hashchain: a shell-script
// hash chain) so that `volsched demo` and the tests can write them out
// anywhere, with no file outside the binary.
package examples

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed jacobi hashchain
var files embed.FS

// Names lists the embedded applications.
func Names() []string { return []string{"jacobi", "hashchain"} }

// Write copies the application name into dir (created), restoring the
// executable bit of scripts (embedded files have none).
func Write(name, dir string) error {
	if _, err := fs.Stat(files, name); err != nil {
		return fmt.Errorf("example %q: want one of %v", name, Names())
	}
	return fs.WalkDir(files, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(name, filepath.FromSlash(p))
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if bytes.HasPrefix(data, []byte("#!")) {
			mode = 0o755
		}
		return os.WriteFile(dst, data, mode)
	})
}
