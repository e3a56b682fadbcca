package manifest

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/examples"
)

func writeApp(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const okScript = "#!/bin/sh\ntrue\n"

func TestLoadExamples(t *testing.T) {
	for _, name := range examples.Names() {
		dir := t.TempDir()
		if err := examples.Write(name, dir); err != nil {
			t.Fatal(err)
		}
		a, err := Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a.Manifest.Name != name || a.Manifest.MaxAttempts < 1 {
			t.Errorf("%s: manifest %+v", name, a.Manifest)
		}
	}
}

func TestLoadRefusesBadManifests(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"none", map[string]string{"x": "y"}, "no volsched.toml or volsched.json"},
		{"both", map[string]string{"volsched.toml": "", "volsched.json": "{}"}, "both volsched.toml and volsched.json"},
		{"syntax", map[string]string{"volsched.toml": "program = \n"}, "volsched.toml"},
		{"unknown", map[string]string{"volsched.toml": "program = \"p\"\ndriver = \"d\"\nprogramm = 1\n", "p": okScript, "d": okScript}, `unknown field "programm"`},
		{"json unknown", map[string]string{"volsched.json": `{"program":"p","driver":"d","x":1}`, "p": okScript, "d": okScript}, `unknown field "x"`},
		{"json type", map[string]string{"volsched.json": `{"program":3}`}, "volsched.json"},
		{"no program", map[string]string{"volsched.toml": "driver = \"d\"\n", "d": okScript}, "program is empty"},
		{"missing program", map[string]string{"volsched.toml": "program = \"nope\"\ndriver = \"d\"\n", "d": okScript}, `program = "nope"`},
		{"not executable", map[string]string{"volsched.toml": "program = \"p\"\ndriver = \"d\"\n", "p": "data", "d": okScript}, "not executable"},
		{"leaves", map[string]string{"volsched.toml": "program = \"../p\"\ndriver = \"d\"\n", "d": okScript}, "leaves the application directory"},
		{"absolute", map[string]string{"volsched.toml": "program = \"/bin/sh\"\ndriver = \"d\"\n", "d": okScript}, "is absolute"},
		{"dir no entry", map[string]string{"volsched.toml": "program = \"bin\"\ndriver = \"d\"\n", "bin/run": okScript, "d": okScript}, "entry is empty"},
		{"dir bad entry", map[string]string{"volsched.toml": "program = \"bin\"\nentry = \"nope\"\ndriver = \"d\"\n", "bin/run": okScript, "d": okScript}, `entry = "nope"`},
		{"entry on file", map[string]string{"volsched.toml": "program = \"p\"\nentry = \"x\"\ndriver = \"d\"\n", "p": okScript, "d": okScript}, "entry only for a directory"},
		{"missing driver", map[string]string{"volsched.toml": "program = \"p\"\ndriver = \"d\"\n", "p": okScript}, `driver = "d"`},
		{"attempts", map[string]string{"volsched.toml": "program = \"p\"\ndriver = \"d\"\nmax_attempts = -1\n", "p": okScript, "d": okScript}, "max_attempts = -1"},
		{"env", map[string]string{"volsched.toml": "program = \"p\"\ndriver = \"d\"\n[env]\nVOLSCHED_X = \"1\"\n", "p": okScript, "d": okScript}, `env key "VOLSCHED_X"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(writeApp(t, c.files))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestPackDeterministicRoundTrip(t *testing.T) {
	dir := writeApp(t, map[string]string{"a/run": okScript, "a/lib/data.txt": "hello", "a/z": "zz"})
	p1, err := Pack(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	// Touch a file (time changes, content does not): same bytes.
	os.Chtimes(filepath.Join(dir, "a/z"), mtimeLater(), mtimeLater())
	p2, _ := Pack(filepath.Join(dir, "a"))
	if !bytes.Equal(p1, p2) {
		t.Fatal("Pack not deterministic")
	}
	out := filepath.Join(t.TempDir(), "u")
	if err := Unpack(p1, out); err != nil {
		t.Fatal(err)
	}
	p3, _ := Pack(out)
	if Digest(p3) != Digest(p1) {
		t.Fatal("unpacked tree packs differently")
	}
	if st, _ := os.Stat(filepath.Join(out, "run")); st.Mode()&0o111 == 0 {
		t.Fatal("executable bit lost")
	}
	os.Symlink("z", filepath.Join(dir, "a/link"))
	if _, err := Pack(filepath.Join(dir, "a")); err == nil || !strings.Contains(err.Error(), "link") {
		t.Fatalf("symlink packed: %v", err)
	}
}

func TestDirectoryProgramRunsLocally(t *testing.T) {
	dir := writeApp(t, map[string]string{
		"volsched.toml": "program = \"prog\"\nentry = \"bin/run\"\ndriver = \"d\"\n[env]\nGREETING = \"hi\"\n",
		"prog/bin/run":  "#!/bin/sh\nset -e\nd=$(dirname \"$0\")\n{ cat \"$1\"; cat \"$d/../msg\"; echo \"$GREETING $VOLSCHED_ITER $VOLSCHED_TASK\"; } > \"$2\"\n",
		"prog/msg":      "from dir\n",
		"d":             "#!/bin/sh\nif [ \"$1\" -eq 0 ]; then echo in > \"$3/t1\"; else cp \"$2/t1\" \"$VOLSCHED_OUTPUT/out\"; fi\n",
	})
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	n, err := a.RunLocal(context.Background(), run)
	if err != nil || n != 1 {
		t.Fatalf("RunLocal = %d, %v", n, err)
	}
	got, _ := os.ReadFile(filepath.Join(run, "output/out"))
	if string(got) != "in\nfrom dir\nhi 0 t1\n" {
		t.Fatalf("output %q", got)
	}
}

func TestDriverFailureNamesDriver(t *testing.T) {
	dir := writeApp(t, map[string]string{
		"volsched.toml": "program = \"p\"\ndriver = \"d\"\n",
		"p":             okScript,
		"d":             "#!/bin/sh\necho line1 >&2\necho broken matrix >&2\nexit 3\n",
	})
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.RunLocal(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "driver d for iteration 0") || !strings.Contains(err.Error(), "broken matrix") {
		t.Fatalf("err = %v", err)
	}
}

// Jacobi computes the example's system sequentially in Go, in the same
// operation order as block.sh.
func Jacobi(n int, tol float64, maxIter int) ([]float64, int) {
	x := make([]float64, n)
	for iter := 1; ; iter++ {
		v := make([]float64, n)
		delta := 0.0
		for i := 0; i < n; i++ {
			s := float64(i + 1)
			for j := 0; j < n; j++ {
				if j != i {
					s -= x[j] / float64(1+abs(i-j))
				}
			}
			v[i] = s / float64(n)
			delta = math.Max(delta, math.Abs(v[i]-x[i]))
		}
		x = v
		if delta < tol || iter >= maxIter {
			return x, iter
		}
	}
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

func TestJacobiExampleMatchesSequential(t *testing.T) {
	dir := t.TempDir()
	if err := examples.Write("jacobi", dir); err != nil {
		t.Fatal(err)
	}
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	iters, err := a.RunLocal(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	want, wantIters := Jacobi(64, 1e-10, 40)
	if iters != wantIters {
		t.Errorf("iterations %d, sequential Go %d", iters, wantIters)
	}
	got := readFloats(t, filepath.Join(run, "output/x.txt"))
	if len(got) != 64 {
		t.Fatalf("x has %d values", len(got))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-13*math.Max(1, math.Abs(want[i])) {
			t.Errorf("x[%d] = %.17g, sequential %.17g", i, got[i], want[i])
		}
	}
	// And it solves the system.
	for i := 0; i < 64; i++ {
		s := 0.0
		for j := 0; j < 64; j++ {
			a := 1 / float64(1+abs(i-j))
			if i == j {
				a = 64
			}
			s += a * got[j]
		}
		if math.Abs(s-float64(i+1)) > 1e-8 {
			t.Errorf("row %d: (Ax)_i = %g, b_i = %d", i, s, i+1)
		}
	}
}

func readFloats(t *testing.T, p string) []float64 {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var v []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		x, err := strconv.ParseFloat(strings.TrimSpace(sc.Text()), 64)
		if err != nil {
			t.Fatal(err)
		}
		v = append(v, x)
	}
	return v
}

func TestHashchainExampleRunsLocally(t *testing.T) {
	dir := t.TempDir()
	if err := examples.Write("hashchain", dir); err != nil {
		t.Fatal(err)
	}
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	iters, err := a.RunLocal(context.Background(), run)
	if err != nil || iters != 3 {
		t.Fatalf("RunLocal = %d, %v", iters, err)
	}
	got, _ := os.ReadFile(filepath.Join(run, "output/chains.txt"))
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "chain-000 ") || len(strings.Fields(lines[0])[1]) != 64 {
		t.Fatalf("chains.txt = %q", got)
	}
}

func mtimeLater() (t time.Time) { return time.Now().Add(time.Hour) }
