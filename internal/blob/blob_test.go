package blob

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func data(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func server(t *testing.T, h *Handler) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/blobs/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestPutVerifyTamper(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := data(1000, 1)
	d, err := s.Put(b)
	if err != nil || d != Sum(b) || !s.Has(d) || s.Size(d) != 1000 {
		t.Fatalf("Put: %v", err)
	}
	if err := s.Verify(d); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.Path(d), []byte("tampered"), 0o644)
	if err := s.Verify(d); !errors.Is(err, ErrDigest) || s.Has(d) {
		t.Fatalf("tampered blob: %v, still there %v", err, s.Has(d))
	}
	if _, err := s.PutReader(bytes.NewReader(b), Sum([]byte("other")), 0); !errors.Is(err, ErrDigest) || s.Has(d) {
		t.Fatalf("PutReader with a wrong digest: %v", err)
	}
	if _, err := s.PutReader(bytes.NewReader(b), "", 10); err == nil {
		t.Fatal("limit not enforced")
	}
}

func TestFetchResumesAndVerifies(t *testing.T) {
	src, _ := Open(t.TempDir())
	b := data(200_000, 2)
	d, _ := src.Put(b)
	srv := server(t, &Handler{Store: src, Prefix: "/blobs/"})
	dst, _ := Open(t.TempDir())
	// Half of it already there from an interrupted transfer.
	os.WriteFile(dst.partial(d), b[:100_000], 0o644)
	n, err := dst.Fetch(context.Background(), srv.Client(), srv.URL+"/blobs/"+d, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 100_000 {
		t.Fatalf("transferred %d bytes, want the missing 100000 only", n)
	}
	if err := dst.Verify(d); err != nil {
		t.Fatal(err)
	}
	// A second fetch of a held blob transfers nothing.
	if n, err := dst.Fetch(context.Background(), srv.Client(), srv.URL+"/blobs/"+d, d, nil); n != 0 || err != nil {
		t.Fatalf("refetch: %d, %v", n, err)
	}
}

func TestFetchCancelledThenResumed(t *testing.T) {
	src, _ := Open(t.TempDir())
	b := data(120_000, 3)
	d, _ := src.Put(b)
	srv := server(t, &Handler{Store: src, Prefix: "/blobs/", Rate: 400_000}) // 0.3 s in all
	dst, _ := Open(t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	n1, err := dst.Fetch(ctx, srv.Client(), srv.URL+"/blobs/"+d, d, nil)
	if err == nil {
		t.Fatal("transfer finished before its cancellation; rate limit not applied")
	}
	n2, err := dst.Fetch(context.Background(), srv.Client(), srv.URL+"/blobs/"+d, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n1 <= 0 || n1+n2 != int64(len(b)) {
		t.Fatalf("first %d + resumed %d bytes, want %d in all with some in the first", n1, n2, len(b))
	}
	if err := dst.Verify(d); err != nil {
		t.Fatal(err)
	}
}

func TestDigestMismatchBothSides(t *testing.T) {
	src, _ := Open(t.TempDir())
	b := data(5000, 4)
	d, _ := src.Put(b)
	// Client side: the server sends bytes that do not hash to the name.
	os.WriteFile(src.Path(d), data(5000, 5), 0o644)
	srv := server(t, &Handler{Store: src, Prefix: "/blobs/"})
	dst, _ := Open(t.TempDir())
	if _, err := dst.Fetch(context.Background(), srv.Client(), srv.URL+"/blobs/"+d, d, nil); !errors.Is(err, ErrDigest) {
		t.Fatalf("corrupt download: %v", err)
	}
	if dst.Has(d) {
		t.Fatal("corrupt blob entered the store")
	}
	if _, err := os.Stat(dst.partial(d)); err == nil {
		t.Fatal("corrupt partial file kept")
	}
	// Server side: an upload whose body does not hash to its name.
	up, _ := Open(t.TempDir())
	good := data(3000, 6)
	gd, _ := up.Put(good)
	os.WriteFile(up.Path(gd), data(3000, 7), 0o644)
	var puts int
	srv2 := server(t, &Handler{Store: src, Prefix: "/blobs/", OnPut: func(string, int64) { puts++ }})
	err := up.Upload(context.Background(), srv2.Client(), srv2.URL+"/blobs/"+gd, gd, nil)
	if !errors.Is(err, ErrDigest) || src.Has(gd) || puts != 0 {
		t.Fatalf("bad upload: %v, stored %v", err, src.Has(gd))
	}
	os.WriteFile(up.Path(gd), good, 0o644)
	if err := up.Upload(context.Background(), srv2.Client(), srv2.URL+"/blobs/"+gd, gd, nil); err != nil || !src.Has(gd) || puts != 1 {
		t.Fatalf("good upload: %v", err)
	}
}

func TestHandlerRefuses(t *testing.T) {
	src, _ := Open(t.TempDir())
	d, _ := src.Put([]byte("x"))
	srv := server(t, &Handler{Store: src, Prefix: "/blobs/", Auth: func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Authorization") != "Bearer ok" {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return false
		}
		return true
	}})
	for _, c := range []struct {
		path, auth string
		code       int
	}{
		{"/blobs/" + d, "", 401},
		{"/blobs/" + d, "Bearer ok", 200},
		{"/blobs/xyz", "Bearer ok", 400},
		{"/blobs/" + strings.Repeat("0", 64), "Bearer ok", 404},
	} {
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("GET %s (%q): %d, want %d", c.path, c.auth, resp.StatusCode, c.code)
		}
	}
	dst, _ := Open(t.TempDir())
	dst.Put([]byte("y"))
	dst.Wipe()
	if len(dst.List()) != 0 {
		t.Fatal("Wipe left blobs")
	}
}
