package report

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/volsched/volsched/internal/headless"
)

// TestBrowser loads the sample page (images linked, then embedded) in
// headless Chromium: every image loads (naturalWidth > 0), the page logs
// no error, and a full-page screenshot is taken. Skipped, saying so, where
// no browser is installed (unless VOLSCHED_REQUIRE_BROWSER is set, as in
// CI: then it fails). VOLSCHED_SCREENSHOT_DIR keeps the screenshots.
func TestBrowser(t *testing.T) {
	browser, err := headless.Find()
	if errors.Is(err, headless.ErrNoBrowser) && os.Getenv(headless.RequireEnv) == "" {
		t.Skip("skipped: no headless browser installed; on Debian: apt-get install chromium (or set VOLSCHED_CHROMIUM)")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, embed := range []bool{false, true} {
		name := map[bool]string{false: "linked", true: "embedded"}[embed]
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			file := writeSample(t, root, Options{Embed: embed, RepoRoot: ".."})
			if err := Check(file); err != nil {
				t.Fatal(err)
			}
			html, _ := os.ReadFile(file)
			want := strings.Count(string(html), "<img ")
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			r, err := headless.Load(ctx, browser, file, headless.Options{Width: 1280})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Images) != want || want == 0 {
				t.Errorf("the browser sees %d images, the page has %d", len(r.Images), want)
			}
			for _, im := range r.Images {
				if !im.Complete || im.NaturalWidth == 0 || im.NaturalHeight == 0 {
					t.Errorf("image %s did not load: %+v", im.Src, im)
				}
			}
			if len(r.Errors) > 0 {
				t.Errorf("the page logged errors: %q", r.Errors)
			}
			if !strings.HasPrefix(r.Title, "volsched: reproduction report") {
				t.Errorf("title %q", r.Title)
			}
			img, err := png.Decode(bytes.NewReader(r.Screenshot))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			if img.Bounds().Dx() != 1280 || img.Bounds().Dy() < r.Height {
				t.Errorf("screenshot %v, want 1280 wide and the page's %d px tall", img.Bounds(), r.Height)
			}
			if r.Width > 1280 {
				t.Errorf("the page is %d px wide at a 1280 px window: it scrolls sideways", r.Width)
			}
			if dir := os.Getenv("VOLSCHED_SCREENSHOT_DIR"); dir != "" {
				p := filepath.Join(dir, "report-sample-"+name+".png")
				if err := os.WriteFile(p, r.Screenshot, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot: %s (%d × %d)", p, img.Bounds().Dx(), img.Bounds().Dy())
			}
		})
	}
}
