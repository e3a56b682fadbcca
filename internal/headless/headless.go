// Package headless loads a local HTML page in headless Chromium and
// reports what a reader would see: whether every image loaded, the errors
// the page logged, and a screenshot. It drives the browser through the
// DevTools protocol over a loopback WebSocket (a minimal client here, so
// no dependency is added), with a fresh profile per load and the browser's
// network features that need no page turned off.
//
// It is for tests of generated pages (the reproduction report); a machine
// without Chromium gets ErrNoBrowser and the tests skip.
package headless

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// RequireEnv names the environment variable that, when set (CI sets it
// after installing Chromium), makes a browser test fail instead of
// skipping when Find finds no browser.
const RequireEnv = "VOLSCHED_REQUIRE_BROWSER"

// ErrNoBrowser is returned by Find when no Chromium is installed.
var ErrNoBrowser = errors.New("no Chromium found (set VOLSCHED_CHROMIUM, or install Debian's chromium package: apt-get install chromium)")

// Find returns the browser to use: $VOLSCHED_CHROMIUM if set, else the
// first of chromium, chromium-browser, google-chrome on PATH.
func Find() (string, error) {
	if p := os.Getenv("VOLSCHED_CHROMIUM"); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("VOLSCHED_CHROMIUM=%q: %w", p, err)
		}
		return path, nil
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Flags are the browser's command-line flags besides the profile
// directory, the DevTools port and the window size: headless, no sandbox
// (tests may run as root in a container), no GPU, and none of the
// browser's own network traffic (QUIC, background networking, component
// updates, sync); /dev/shm is not relied on (small in containers).
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
}

// Options of a load.
type Options struct {
	Width  int // viewport width in CSS pixels; 0: 1280
	Height int // viewport height before the full-page screenshot; 0: 900
	// MaxHeight bounds the full-page screenshot's height; 0: 30000.
	MaxHeight int
}

// Image is what the browser made of one <img>.
type Image struct {
	Src           string `json:"src"` // abbreviated for data: URIs
	Complete      bool   `json:"complete"`
	NaturalWidth  int    `json:"naturalWidth"`
	NaturalHeight int    `json:"naturalHeight"`
}

// Result of loading a page.
type Result struct {
	Title  string
	Images []Image
	// Errors are the page's errors: console.error and failed assertions,
	// uncaught exceptions, and the browser's log entries of level error
	// (failed loads, blocked resources).
	Errors []string
	// Screenshot is a PNG of the whole page at Width.
	Screenshot []byte
	// Width and Height of the page's content, in CSS pixels.
	Width, Height int
}

// Load opens file (a local HTML page) in a fresh headless browser, waits
// for its load event, and returns the images' state, the errors logged and
// a full-page screenshot. The browser is stopped before Load returns; ctx
// bounds the whole load.
func Load(ctx context.Context, browser, file string, opt Options) (*Result, error) {
	if opt.Width == 0 {
		opt.Width = 1280
	}
	if opt.Height == 0 {
		opt.Height = 900
	}
	if opt.MaxHeight == 0 {
		opt.MaxHeight = 30000
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "volsched-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)

	args := append(append([]string(nil), Flags...),
		"--user-data-dir="+profile,
		"--remote-debugging-port=0",
		fmt.Sprintf("--window-size=%d,%d", opt.Width, opt.Height),
		"about:blank")
	cmd := exec.Command(browser, args...)
	ownProcessGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", browser, err)
	}
	log := &tail{max: 8 << 10}
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			log.add(line)
			if u, ok := strings.CutPrefix(line, "DevTools listening on "); ok {
				select {
				case endpoint <- strings.TrimSpace(u):
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer stop(cmd, exited)

	var browserURL string
	select {
	case browserURL = <-endpoint:
	case err := <-exited:
		exited <- err // for stop
		return nil, fmt.Errorf("%s exited before listening (%v): %s", browser, err, log.String())
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no DevTools endpoint: %w; stderr: %s", browser, ctx.Err(), log.String())
	}
	pageURL, err := pageTarget(ctx, browserURL)
	if err != nil {
		return nil, err
	}
	s, err := newSession(ctx, pageURL)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.load(ctx, abs, opt)
}

// pageTarget asks the browser's DevTools HTTP endpoint (on the same
// loopback port as browserURL) for the page's WebSocket URL.
func pageTarget(ctx context.Context, browserURL string) (string, error) {
	u, err := url.Parse(browserURL)
	if err != nil {
		return "", err
	}
	list := "http://" + u.Host + "/json/list"
	if !isLoopbackHTTP(list) {
		return "", fmt.Errorf("DevTools endpoint %s is not on a loopback address", browserURL)
	}
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", list, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		var targets []struct {
			Type, URL, WebSocketDebuggerURL string
		}
		err = json.NewDecoder(resp.Body).Decode(&targets)
		resp.Body.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", list, err)
		}
		for _, t := range targets {
			if t.Type == "page" && t.WebSocketDebuggerURL != "" {
				return t.WebSocketDebuggerURL, nil
			}
		}
		select { // the first page may not be listed yet
		case <-ctx.Done():
			return "", fmt.Errorf("%s: no page target: %w", list, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop ends the browser: it is asked to close by its process's signal,
// then killed with its process group if it has not exited after 5 s.
func stop(cmd *exec.Cmd, exited chan error) {
	terminate(cmd)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		kill(cmd)
		<-exited
	}
}

// session is one DevTools connection to a page.
type session struct {
	ws     *wsConn
	mu     sync.Mutex
	nextID int
	wait   map[int]chan message
	events chan message
	done   chan struct{}
	err    error
}

type message struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func newSession(ctx context.Context, wsURL string) (*session, error) {
	timeout := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	ws, err := dialWS(wsURL, timeout)
	if err != nil {
		return nil, err
	}
	s := &session{ws: ws, wait: map[int]chan message{}, events: make(chan message, 4096), done: make(chan struct{})}
	go s.read()
	return s, nil
}

func (s *session) read() {
	defer close(s.done)
	for {
		b, err := s.ws.readMessage()
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			continue
		}
		if m.ID != 0 {
			s.mu.Lock()
			ch := s.wait[m.ID]
			delete(s.wait, m.ID)
			s.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case s.events <- m:
		default: // a flood of events: drop rather than block
		}
	}
}

// call sends a command and waits for its result.
func (s *session) call(ctx context.Context, method string, params any, result any) error {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	ch := make(chan message, 1)
	s.wait[id] = ch
	s.mu.Unlock()
	b, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if err := s.ws.writeText(b); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-s.done:
		return fmt.Errorf("%s: connection closed: %v", method, s.err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (s *session) close() { s.ws.close() }

// load navigates to the file and gathers the result.
func (s *session) load(ctx context.Context, abs string, opt Options) (*Result, error) {
	r := &Result{}
	// Events wait in s.events, in the order they came, until handled
	// here: the reader queues an event before any later response, so
	// draining after the last call sees every error logged before it.
	handle := func(m message) bool {
		if e := pageError(m); e != "" {
			r.Errors = append(r.Errors, e)
		}
		return m.Method == "Page.loadEventFired"
	}
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		if err := s.call(ctx, m, struct{}{}, nil); err != nil {
			return nil, err
		}
	}
	metrics := func(h int) error {
		return s.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
			"width": opt.Width, "height": h, "deviceScaleFactor": 1, "mobile": false}, nil)
	}
	if err := metrics(opt.Height); err != nil {
		return nil, err
	}
	// Events of about:blank are not the page's.
	for drained := false; !drained; {
		select {
		case <-s.events:
		default:
			drained = true
		}
	}
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := s.call(ctx, "Page.navigate", map[string]any{"url": fileURL}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("navigate to %s: %s", fileURL, nav.ErrorText)
	}
	for loaded := false; !loaded; {
		select {
		case m := <-s.events:
			loaded = handle(m)
		case <-s.done:
			return nil, fmt.Errorf("%s: connection closed before the load event: %v", fileURL, s.err)
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: no load event: %w", fileURL, ctx.Err())
		}
	}

	// The images, once each has finished decoding or failed.
	const js = `(async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  return JSON.stringify({
    title: document.title,
    width: Math.ceil(document.documentElement.scrollWidth),
    height: Math.ceil(document.documentElement.scrollHeight),
    images: imgs.map(i => ({src: i.getAttribute("src") || "", complete: i.complete,
      naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight})),
  });
})()`
	var ev struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := s.call(ctx, "Runtime.evaluate", map[string]any{"expression": js, "awaitPromise": true, "returnByValue": true}, &ev); err != nil {
		return nil, err
	}
	if len(ev.ExceptionDetails) > 0 {
		return nil, fmt.Errorf("inspecting the page: %s", ev.ExceptionDetails)
	}
	var page struct {
		Title  string  `json:"title"`
		Width  int     `json:"width"`
		Height int     `json:"height"`
		Images []Image `json:"images"`
	}
	if err := json.Unmarshal([]byte(ev.Result.Value), &page); err != nil {
		return nil, fmt.Errorf("inspecting the page: %w", err)
	}
	r.Title, r.Images, r.Width, r.Height = page.Title, page.Images, page.Width, page.Height
	for i := range r.Images {
		if src := r.Images[i].Src; strings.HasPrefix(src, "data:") && len(src) > 60 {
			r.Images[i].Src = src[:40] + "…"
		}
	}

	// A screenshot of the whole page.
	if err := metrics(min(max(page.Height, opt.Height), opt.MaxHeight)); err != nil {
		return nil, err
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := s.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	r.Screenshot = png
	for {
		select {
		case m := <-s.events:
			handle(m)
		default:
			return r, nil
		}
	}
}

// pageError turns an error event into a line, or "" for other events.
func pageError(m message) string {
	switch m.Method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(m.Params, &p) != nil || (p.Type != "error" && p.Type != "assert") {
			return ""
		}
		var parts []string
		for _, a := range p.Args {
			if a.Value != nil {
				parts = append(parts, fmt.Sprint(a.Value))
			} else {
				parts = append(parts, a.Description)
			}
		}
		return "console." + p.Type + ": " + strings.Join(parts, " ")
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(m.Params, &p)
		return "exception: " + strings.TrimSpace(p.ExceptionDetails.Text+" "+p.ExceptionDetails.Exception.Description)
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Entry.Level != "error" {
			return ""
		}
		u := p.Entry.URL
		if strings.HasPrefix(u, "data:") && len(u) > 60 {
			u = u[:40] + "…"
		}
		return "log (" + p.Entry.Source + "): " + p.Entry.Text + " " + u
	}
	return ""
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, line...)
	t.b = append(t.b, '\n')
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Problems lists what a reader of the loaded page would meet: fewer images
// than want (the page's <img> elements), an image that did not load, an
// error logged, a page wider than the window of width CSS pixels (it
// scrolls sideways), a screenshot that is not a PNG. Empty: none.
func (r *Result) Problems(want, width int) []string {
	var out []string
	if len(r.Images) != want {
		out = append(out, fmt.Sprintf("the browser sees %d images, the page has %d", len(r.Images), want))
	}
	for _, im := range r.Images {
		if !im.Complete || im.NaturalWidth == 0 || im.NaturalHeight == 0 {
			out = append(out, fmt.Sprintf("image %s did not load: %+v", im.Src, im))
		}
	}
	for _, e := range r.Errors {
		out = append(out, "the page logged an error: "+e)
	}
	if r.Width > width {
		out = append(out, fmt.Sprintf("the page is %d px wide at a %d px window: it scrolls sideways", r.Width, width))
	}
	if !bytes.HasPrefix(r.Screenshot, []byte("\x89PNG\r\n\x1a\n")) {
		out = append(out, "the screenshot is not a PNG")
	}
	return out
}
