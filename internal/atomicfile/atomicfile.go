// Package atomicfile writes a file so that a reader, or the file system
// after a crash, sees either the old content or the whole new one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with mode perm through a temporary file in the
// same directory (".NAME.*"), synced to disk, then renamed over path. On
// an error the temporary file is removed and path is left as it was.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
