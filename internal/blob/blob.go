// Package blob is the live system's content-addressed store: every
// program, task input and result is a file named by the SHA-256 of its
// bytes, verified when it enters the store, when it is served and when it
// is used. Handler serves a store over HTTP (GET with Range, so that an
// interrupted transfer resumes where it stopped; PUT for uploads, refused
// unless the body hashes to the name); Fetch downloads into a store,
// resuming a partial file and verifying the result.
package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrDigest is returned when bytes do not hash to the digest they were
// announced with.
var ErrDigest = errors.New("blob digest mismatch")

// ValidDigest reports whether d is 64 lowercase hex digits.
func ValidDigest(d string) bool {
	if len(d) != 64 {
		return false
	}
	for _, c := range d {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Sum is the hex SHA-256 of data.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Store is a directory of blobs: dir/sha256/XX/DIGEST, with partial
// downloads in dir/partial.
type Store struct {
	dir string
}

// Open opens (creating it) the store in dir.
func Open(dir string) (*Store, error) {
	for _, d := range []string{filepath.Join(dir, "sha256"), filepath.Join(dir, "partial"), filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	return &Store{dir: dir}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Path is where blob d lives (whether or not it is there).
func (s *Store) Path(d string) string { return filepath.Join(s.dir, "sha256", d[:2], d) }

func (s *Store) partial(d string) string { return filepath.Join(s.dir, "partial", d) }

// Has reports whether blob d is in the store (not verified: see Verify).
func (s *Store) Has(d string) bool {
	if !ValidDigest(d) {
		return false
	}
	_, err := os.Stat(s.Path(d))
	return err == nil
}

// Size is the size of blob d, or −1.
func (s *Store) Size(d string) int64 {
	st, err := os.Stat(s.Path(d))
	if err != nil {
		return -1
	}
	return st.Size()
}

// Verify re-hashes blob d; a blob that does not match is removed and
// ErrDigest returned.
func (s *Store) Verify(d string) error {
	if !ValidDigest(d) {
		return fmt.Errorf("digest %q: want 64 lowercase hex digits", d)
	}
	f, err := os.Open(s.Path(d))
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d {
		os.Remove(s.Path(d))
		return fmt.Errorf("blob %s hashes to %s: %w", d, got, ErrDigest)
	}
	return nil
}

// Put stores data and returns its digest.
func (s *Store) Put(data []byte) (string, error) {
	d := Sum(data)
	if s.Has(d) {
		return d, nil
	}
	return d, s.commit(d, func(f *os.File) error { _, err := f.Write(data); return err })
}

// PutReader stores the bytes of r, which must hash to want (when want is
// not empty), reading at most limit bytes (0: no limit). It returns the
// digest once the blob is durable (file and directory synced); on a
// mismatch nothing is stored and the error wraps ErrDigest.
func (s *Store) PutReader(r io.Reader, want string, limit int64) (string, error) {
	d, err := s.putReader(r, want, limit)
	if err != nil {
		return "", err
	}
	return d, syncDir(filepath.Dir(s.Path(d)))
}

// Adopt moves the files at paths into the store (they must be on the
// store's file system; up to parallel at once: their syncs overlap) and
// returns their digests once all are durable (each file synced, then each
// directory they were renamed into, once). Moving a file, instead of
// copying it, creates no new file: on some file systems creating one costs
// more than everything else here.
func (s *Store) Adopt(paths []string, parallel int) ([]string, error) {
	digests := make([]string, len(paths))
	errs := make(chan error, len(paths))
	sem := make(chan struct{}, max(parallel, 1))
	for i, p := range paths {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			var err error
			digests[i], err = s.adopt(p)
			errs <- err
		}()
	}
	var first error
	for range paths {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	dirs := map[string]bool{}
	for _, d := range digests {
		dirs[filepath.Dir(s.Path(d))] = true
	}
	for dir := range dirs {
		if err := syncDir(dir); err != nil {
			return nil, err
		}
	}
	return digests, nil
}

func (s *Store) adopt(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	if err != nil {
		return "", err
	}
	d := hex.EncodeToString(h.Sum(nil))
	if s.Has(d) {
		return d, os.Remove(p)
	}
	if err := os.MkdirAll(filepath.Dir(s.Path(d)), 0o755); err != nil {
		return "", err
	}
	return d, os.Rename(p, s.Path(d))
}

// syncDir makes a directory's entries (a rename into it) durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func (s *Store) putReader(r io.Reader, want string, limit int64) (string, error) {
	tmp, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "put-")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	src := r
	if limit > 0 {
		src = io.LimitReader(r, limit+1)
	}
	n, err := io.Copy(io.MultiWriter(tmp, h), src)
	if err != nil {
		tmp.Close()
		return "", err
	}
	if limit > 0 && n > limit {
		tmp.Close()
		return "", fmt.Errorf("blob larger than the limit of %d bytes", limit)
	}
	d := hex.EncodeToString(h.Sum(nil))
	if want != "" && d != want {
		tmp.Close()
		return "", fmt.Errorf("received bytes hash to %s, announced %s: %w", d, want, ErrDigest)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path(d)), 0o755); err != nil {
		return "", err
	}
	return d, os.Rename(tmp.Name(), s.Path(d))
}

// commit writes a blob through a synced temporary file and a rename.
func (s *Store) commit(d string, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "put-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path(d)), 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.Path(d)); err != nil {
		return err
	}
	return syncDir(filepath.Dir(s.Path(d)))
}

// Remove deletes blob d and any partial download of it.
func (s *Store) Remove(d string) {
	if ValidDigest(d) {
		os.Remove(s.Path(d))
		os.Remove(s.partial(d))
	}
}

// List returns the digests of the blobs in the store.
func (s *Store) List() []string {
	var out []string
	dirs, _ := os.ReadDir(filepath.Join(s.dir, "sha256"))
	for _, dd := range dirs {
		ents, _ := os.ReadDir(filepath.Join(s.dir, "sha256", dd.Name()))
		for _, e := range ents {
			if ValidDigest(e.Name()) {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// Wipe empties the store (an emulated worker going DOWN loses its disk).
func (s *Store) Wipe() error {
	for _, d := range []string{"sha256", "partial", "tmp"} {
		if err := os.RemoveAll(filepath.Join(s.dir, d)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// Handler serves the store under prefix (e.g. "/blobs/"): GET (and HEAD)
// DIGEST with Range requests; PUT DIGEST stores the body if it hashes to
// DIGEST (else 400 and nothing stored), at most maxPut bytes. auth decides
// whether a request may proceed (it writes its own error when it refuses);
// rate, when > 0, limits every GET to that many bytes per second (to give
// transfers a duration in tests and demos); onPut is called after a
// successful PUT.
type Handler struct {
	Store  *Store
	Prefix string
	Auth   func(w http.ResponseWriter, r *http.Request) bool
	MaxPut int64
	Rate   int64
	OnPut  func(digest string, size int64)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d := strings.TrimPrefix(r.URL.Path, h.Prefix)
	if !ValidDigest(d) {
		http.Error(w, fmt.Sprintf("blob name %q: want a SHA-256 digest (64 lowercase hex digits)", d), http.StatusBadRequest)
		return
	}
	if h.Auth != nil && !h.Auth(w, r) {
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		f, err := os.Open(h.Store.Path(d))
		if err != nil {
			http.Error(w, "no blob "+d, http.StatusNotFound)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("ETag", `"`+d+`"`)
		var rs io.ReadSeeker = f
		if h.Rate > 0 {
			rs = &throttled{f: f, rate: h.Rate, ctx: r.Context()}
		}
		http.ServeContent(w, r, "", time.Time{}, &sized{rs, st.Size()})
	case http.MethodPut:
		max := h.MaxPut
		if max <= 0 {
			max = 1 << 30
		}
		got, err := h.Store.PutReader(http.MaxBytesReader(w, r.Body, max+1), d, max)
		if err != nil {
			code := http.StatusInternalServerError
			if errors.Is(err, ErrDigest) || strings.Contains(err.Error(), "limit") || strings.Contains(err.Error(), "too large") {
				code = http.StatusBadRequest
			}
			http.Error(w, err.Error(), code)
			return
		}
		if h.OnPut != nil {
			h.OnPut(got, h.Store.Size(got))
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT")
		http.Error(w, "method "+r.Method+" not allowed", http.StatusMethodNotAllowed)
	}
}

// sized is a ReadSeeker whose size http.ServeContent need not seek for.
type sized struct {
	io.ReadSeeker
	n int64
}

// throttled reads at most rate bytes per second.
type throttled struct {
	f     *os.File
	rate  int64
	ctx   context.Context
	start time.Time
	read  int64
}

func (t *throttled) Seek(off int64, whence int) (int64, error) { return t.f.Seek(off, whence) }

func (t *throttled) Read(p []byte) (int, error) {
	if t.start.IsZero() {
		t.start = time.Now()
	}
	if max := t.rate / 20; int64(len(p)) > max && max > 0 {
		p = p[:max]
	}
	n, err := t.f.Read(p)
	t.read += int64(n)
	due := t.start.Add(time.Duration(float64(t.read) / float64(t.rate) * float64(time.Second)))
	if d := time.Until(due); d > 0 {
		select {
		case <-time.After(d):
		case <-t.ctx.Done():
			return n, t.ctx.Err()
		}
	}
	return n, err
}

// Fetch downloads blob digest from url into the store, with header added
// to the request (authentication). A partial download left by an earlier
// Fetch (cancelled: the worker was reclaimed, or the connection broke) is
// resumed with a Range request. The whole blob is verified before it
// enters the store; on a mismatch the partial file is deleted and the
// error wraps ErrDigest. It returns the bytes transferred by this call.
func (s *Store) Fetch(ctx context.Context, client *http.Client, url, digest string, header http.Header) (int64, error) {
	if !ValidDigest(digest) {
		return 0, fmt.Errorf("digest %q: want 64 lowercase hex digits", digest)
	}
	if s.Has(digest) {
		return 0, nil
	}
	part := s.partial(digest)
	f, err := os.OpenFile(part, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
		req.Header.Set("If-Range", `"`+digest+`"`)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		// The whole blob (no range, or the server ignored it): start over.
		if err := f.Truncate(0); err != nil {
			return 0, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
	case http.StatusPartialContent:
	case http.StatusRequestedRangeNotSatisfiable:
		// Our partial file is as long as the blob or longer: check it.
	default:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return 0, fmt.Errorf("GET %s: %s: %s", url, resp.Status, strings.TrimSpace(string(msg)))
	}
	var n int64
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		n, err = io.Copy(f, resp.Body)
		if err != nil {
			return n, err // partial file kept: the next Fetch resumes
		}
	}
	if err := f.Sync(); err != nil {
		return n, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return n, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return n, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		f.Close()
		os.Remove(part)
		return n, fmt.Errorf("GET %s: received bytes hash to %s: %w", url, got, ErrDigest)
	}
	if err := os.MkdirAll(filepath.Dir(s.Path(digest)), 0o755); err != nil {
		return n, err
	}
	return n, os.Rename(part, s.Path(digest))
}

// Upload PUTs blob digest of the store to url.
func (s *Store) Upload(ctx context.Context, client *http.Client, url, digest string, header http.Header) error {
	f, err := os.Open(s.Path(digest))
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, f)
	if err != nil {
		return err
	}
	req.ContentLength = st.Size()
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		err := fmt.Errorf("PUT %s: %s: %s", url, resp.Status, strings.TrimSpace(string(msg)))
		if strings.Contains(string(msg), ErrDigest.Error()) {
			err = fmt.Errorf("%w (%v)", ErrDigest, err)
		}
		return err
	}
	return nil
}
