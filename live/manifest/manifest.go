// Package manifest reads the application a user brings to the live runtime:
// a directory holding a manifest (volsched.toml or volsched.json), the
// program every task runs on a worker and the driver the master runs
// between iterations.
//
// The manifest schema (TOML; the JSON form has the same keys):
//
//	name = "jacobi"          # free text, shown by status and in logs
//	program = "block.sh"     # executable file, or a directory (then entry names the file to run)
//	entry = ""               # required when program is a directory: path inside it
//	driver = "driver.sh"     # executable run on the master: driver ITER RESULTS_DIR TASKS_DIR
//	max_attempts = 3         # failed attempts of one task before the application stops
//	[env]                    # extra environment of every task (optional)
//	KEY = "value"
//
// Paths are relative to the application directory and may not leave it.
package manifest

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/volsched/volsched/internal/jsonin"
	"github.com/volsched/volsched/internal/taskrun"
)

// Manifest is the content of volsched.toml / volsched.json.
type Manifest struct {
	Name        string            `toml:"name" json:"name"`
	Program     string            `toml:"program" json:"program"`
	Entry       string            `toml:"entry" json:"entry"`
	Driver      string            `toml:"driver" json:"driver"`
	MaxAttempts int               `toml:"max_attempts" json:"max_attempts"`
	Env         map[string]string `toml:"env" json:"env"`
}

// DefaultMaxAttempts is the number of failed attempts of a task before the
// application stops, when the manifest does not say.
const DefaultMaxAttempts = 3

// App is a loaded, checked application directory.
type App struct {
	Dir      string // absolute
	File     string // the manifest's path
	Manifest Manifest
	// ProgramPath is the program's absolute path; ProgramIsDir says it is a
	// directory (packed with Pack, run through Entry).
	ProgramPath  string
	ProgramIsDir bool
	DriverPath   string
}

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Load reads and checks the application in dir: the manifest parses, its
// fields are valid, the program and the driver exist and are executable.
// Errors name the file, the field, the value and what was expected.
func Load(dir string) (*App, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("application directory %q: %v", dir, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("application directory %q: %v", dir, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("application directory %q: not a directory", dir)
	}
	a := &App{Dir: abs}
	tomlPath, jsonPath := filepath.Join(abs, "volsched.toml"), filepath.Join(abs, "volsched.json")
	_, errT := os.Stat(tomlPath)
	_, errJ := os.Stat(jsonPath)
	switch {
	case errT == nil && errJ == nil:
		return nil, fmt.Errorf("%s: both volsched.toml and volsched.json are present, want one manifest", abs)
	case errT == nil:
		a.File = tomlPath
		md, err := toml.DecodeFile(tomlPath, &a.Manifest)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", tomlPath, err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			return nil, fmt.Errorf("%s: unknown field %q, want name, program, entry, driver, max_attempts or env", tomlPath, und[0].String())
		}
	case errJ == nil:
		a.File = jsonPath
		data, err := os.ReadFile(jsonPath)
		if err != nil {
			return nil, err
		}
		if err := jsonin.Decode(data, &a.Manifest, jsonPath); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: no volsched.toml or volsched.json, want an application manifest (see docs/runtime.md)", abs)
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *App) check() error {
	m := &a.Manifest
	f := a.File
	if m.MaxAttempts == 0 {
		m.MaxAttempts = DefaultMaxAttempts
	}
	if m.MaxAttempts < 1 || m.MaxAttempts > 1000 {
		return fmt.Errorf("%s: max_attempts = %d, want 1..1000", f, m.MaxAttempts)
	}
	for k := range m.Env {
		if !envKey.MatchString(k) || strings.HasPrefix(k, "VOLSCHED_") {
			return fmt.Errorf("%s: env key %q, want a variable name ([A-Za-z_][A-Za-z0-9_]*) not starting with VOLSCHED_", f, k)
		}
	}
	var err error
	if a.ProgramPath, err = a.inside("program", m.Program); err != nil {
		return err
	}
	st, err := os.Stat(a.ProgramPath)
	if err != nil {
		return fmt.Errorf("%s: program = %q: %v", f, m.Program, errors.Unwrap(err))
	}
	if st.IsDir() {
		a.ProgramIsDir = true
		if m.Entry == "" {
			return fmt.Errorf("%s: program = %q is a directory: entry is empty, want the path of the file to run inside it", f, m.Program)
		}
		e := path.Clean(filepath.ToSlash(m.Entry))
		if path.IsAbs(e) || e == ".." || strings.HasPrefix(e, "../") {
			return fmt.Errorf("%s: entry = %q, want a relative path inside the program directory", f, m.Entry)
		}
		est, err := os.Stat(filepath.Join(a.ProgramPath, filepath.FromSlash(e)))
		if err != nil {
			return fmt.Errorf("%s: entry = %q: %v", f, m.Entry, errors.Unwrap(err))
		}
		if est.IsDir() || est.Mode()&0o111 == 0 {
			return fmt.Errorf("%s: entry = %q is not an executable file (mode %v)", f, m.Entry, est.Mode())
		}
		m.Entry = e
	} else {
		if m.Entry != "" {
			return fmt.Errorf("%s: entry = %q but program %q is a file, want entry only for a directory program", f, m.Entry, m.Program)
		}
		if st.Mode()&0o111 == 0 {
			return fmt.Errorf("%s: program = %q is not executable (mode %v), want an executable file or a directory", f, m.Program, st.Mode())
		}
	}
	if a.DriverPath, err = a.inside("driver", m.Driver); err != nil {
		return err
	}
	dst, err := os.Stat(a.DriverPath)
	if err != nil {
		return fmt.Errorf("%s: driver = %q: %v", f, m.Driver, errors.Unwrap(err))
	}
	if dst.IsDir() || dst.Mode()&0o111 == 0 {
		return fmt.Errorf("%s: driver = %q is not an executable file (mode %v)", f, m.Driver, dst.Mode())
	}
	return nil
}

// inside resolves a manifest path relative to the application directory,
// refusing one that is empty or leaves it.
func (a *App) inside(field, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%s: %s is empty, want a path relative to the application directory", a.File, field)
	}
	if filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: %s = %q is absolute, want a path relative to the application directory", a.File, field, p)
	}
	full := filepath.Join(a.Dir, p)
	rel, err := filepath.Rel(a.Dir, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: %s = %q leaves the application directory", a.File, field, p)
	}
	return full, nil
}

// Program returns the program blob: the file's bytes, or the directory
// packed with Pack.
func (a *App) Program() ([]byte, error) {
	if a.ProgramIsDir {
		return Pack(a.ProgramPath)
	}
	return os.ReadFile(a.ProgramPath)
}

// Pack writes the tree under dir as a deterministic tar: regular files and
// directories only (a symbolic link or other special file is an error
// naming it), in sorted path order, with no owner, time or permission
// beyond the executable bit. The same tree always packs to the same bytes,
// so a packed program is identified by the SHA-256 of its tar.
func Pack(dir string) ([]byte, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if !d.Type().IsRegular() && !d.IsDir() {
			return fmt.Errorf("%s: %v, want regular files and directories only in a program directory", p, d.Type())
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		name := filepath.ToSlash(rel)
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		h := &tar.Header{Name: name, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if st.IsDir() {
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, name+"/", 0o755
			if err := tw.WriteHeader(h); err != nil {
				return nil, err
			}
			continue
		}
		h.Typeflag, h.Size, h.Mode = tar.TypeReg, st.Size(), 0o644
		if st.Mode()&0o111 != 0 {
			h.Mode = 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(tw, f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unpack extracts a tar made by Pack into dir (created), refusing entries
// that would leave it or are not regular files or directories.
func Unpack(data []byte, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("program archive: %v", err)
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("program archive: entry %q leaves the directory", h.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("program archive: entry %q has type %q, want a file or a directory", h.Name, h.Typeflag)
		}
	}
}

// Digest is the hex SHA-256 of data.
func Digest(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// DriverError is a failed driver run: its exit and the last lines of its
// standard error.
type DriverError struct {
	Driver string
	Iter   int
	Err    error
	Stderr string
}

func (e *DriverError) Error() string {
	msg := fmt.Sprintf("driver %s for iteration %d: %v", e.Driver, e.Iter, e.Err)
	if e.Stderr != "" {
		msg += "; its last stderr lines:\n" + e.Stderr
	}
	return msg
}

// Tail returns the last n lines of b (without a final newline).
func Tail(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// RunDriver runs the driver for iteration iter: `driver ITER RESULTS_DIR
// TASKS_DIR` in the application directory, with VOLSCHED_OUTPUT naming
// outputDir (where it writes the application's final output), and returns
// the task inputs it wrote: the regular files of tasksDir by name, in name
// order. None means the application is finished. A non-zero exit, a
// subdirectory or a special file in tasksDir is an error.
func (a *App) RunDriver(ctx context.Context, iter int, resultsDir, tasksDir, outputDir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, a.DriverPath, fmt.Sprint(iter), resultsDir, tasksDir)
	cmd.Dir = a.Dir
	cmd.Env = append(os.Environ(), "VOLSCHED_OUTPUT="+outputDir, fmt.Sprintf("VOLSCHED_ITER=%d", iter), "VOLSCHED_APP="+a.Dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		return nil, &DriverError{Driver: a.Manifest.Driver, Iter: iter, Err: err, Stderr: Tail(stderr.Bytes(), 10)}
	}
	ents, err := os.ReadDir(tasksDir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			return nil, &DriverError{Driver: a.Manifest.Driver, Iter: iter, Err: fmt.Errorf("wrote %q in TASKS_DIR, want regular files only (one per task)", e.Name())}
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// TaskSpec is a task's run: `program INPUT OUTPUT` in workDir, with
// VOLSCHED_ITER, VOLSCHED_TASK and the manifest's env. The runner
// (internal/taskrun) gives it a process group of its own, which a worker
// stops, continues and kills whole, and kills it with its caller.
func TaskSpec(program, input, output, workDir string, iter int, task string, env map[string]string) taskrun.Spec {
	s := taskrun.Spec{Path: program, Args: []string{input, output}, Dir: workDir}
	s.Env = append(os.Environ(), fmt.Sprintf("VOLSCHED_ITER=%d", iter), "VOLSCHED_TASK="+task)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s.Env = append(s.Env, k+"="+env[k])
	}
	return s
}

// Entry is the file to execute inside a directory program unpacked at
// root, or root itself for a file program.
func (a *App) Entry(root string) string {
	if a.ProgramIsDir {
		return filepath.Join(root, filepath.FromSlash(a.Manifest.Entry))
	}
	return root
}

// RunLocal runs the application sequentially on this machine, with the
// same conventions as the live runtime: iteration ITER's task inputs in
// dir/tasks/ITER, its results in dir/results/ITER (same names), the final
// output in dir/output. It is the reference a distributed run must equal
// byte for byte, and returns the number of iterations run.
func (a *App) RunLocal(ctx context.Context, dir string) (int, error) {
	out := filepath.Join(dir, "output")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	prev := filepath.Join(dir, "results", "empty")
	if err := os.MkdirAll(prev, 0o755); err != nil {
		return 0, err
	}
	for iter := 0; ; iter++ {
		if err := ctx.Err(); err != nil {
			return iter, err
		}
		tasks := filepath.Join(dir, "tasks", fmt.Sprint(iter))
		if err := os.MkdirAll(tasks, 0o755); err != nil {
			return iter, err
		}
		names, err := a.RunDriver(ctx, iter, prev, tasks, out)
		if err != nil {
			return iter, err
		}
		if len(names) == 0 {
			return iter, nil
		}
		res := filepath.Join(dir, "results", fmt.Sprint(iter))
		if err := os.MkdirAll(res, 0o755); err != nil {
			return iter, err
		}
		for _, n := range names {
			wd, err := os.MkdirTemp(dir, "run-")
			if err != nil {
				return iter, err
			}
			outFile := filepath.Join(wd, "OUTPUT")
			spec := TaskSpec(a.Entry(a.ProgramPath), filepath.Join(tasks, n), outFile, wd, iter, n, a.Manifest.Env)
			spec.Stderr = wd + ".stderr" // beside the task's directory, not in it
			task, err := taskrun.Start(ctx, spec)
			if err != nil {
				return iter, fmt.Errorf("task %s of iteration %d: %v", n, iter, err)
			}
			r := task.Wait()
			stderr := taskrun.ReadTail(spec.Stderr, 64<<10)
			os.Remove(spec.Stderr)
			if !r.OK() {
				return iter, fmt.Errorf("task %s of iteration %d: %v; its last stderr lines:\n%s", n, iter, r.Err, Tail([]byte(stderr), 10))
			}
			if err := os.Rename(outFile, filepath.Join(res, n)); err != nil {
				return iter, fmt.Errorf("task %s of iteration %d: no OUTPUT file: %v", n, iter, err)
			}
			os.RemoveAll(wd)
		}
		prev = res
	}
}
