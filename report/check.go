package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Check reads the HTML page at file and reports every problem a reader
// would meet: a link to an anchor that is not on the page, a relative link
// to a file that does not exist, an image that is missing, empty, not an
// image or fetched from the network, an image without alternative text, a
// script or style sheet from outside, an id used twice. Links to http(s)
// and mailto addresses are allowed (they are references, not parts of the
// page) and not followed. The page must be well formed (the pages Write
// makes are: XHTML-compatible HTML5); a page that is not is reported as
// such. It returns nil when there is nothing to report, otherwise all
// problems joined, each naming the element and the value.
func Check(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	dir := filepath.Dir(file)
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var (
		problems []error
		ids      = map[string]int{}
		anchors  []string // fragments linked to
	)
	add := func(format string, a ...any) {
		problems = append(problems, fmt.Errorf("%s: "+format, append([]any{file}, a...)...))
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			add("not well formed: %v", err)
			break
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[strings.ToLower(a.Name.Local)] = a.Value
		}
		if id, ok := attr["id"]; ok {
			ids[id]++
			if ids[id] == 2 {
				add("id %q used more than once", id)
			}
		}
		name := strings.ToLower(el.Name.Local)
		switch name {
		case "a":
			href, ok := attr["href"]
			if !ok {
				continue
			}
			if frag, ok := strings.CutPrefix(href, "#"); ok {
				anchors = append(anchors, frag)
				continue
			}
			u, err := url.Parse(href)
			if err != nil {
				add("<a href=%q>: %v", href, err)
				continue
			}
			switch strings.ToLower(u.Scheme) {
			case "http", "https", "mailto":
				continue
			case "":
			default:
				add("<a href=%q>: scheme %q, want a relative link or http(s)", href, u.Scheme)
				continue
			}
			if u.Host != "" || strings.HasPrefix(u.Path, "/") {
				add("<a href=%q>: absolute, want a link relative to the page", href)
				continue
			}
			if err := exists(dir, u.Path); err != nil {
				add("<a href=%q>: broken link: %v", href, err)
			}
		case "img":
			src := attr["src"]
			if strings.TrimSpace(attr["alt"]) == "" {
				add("<img src=%q>: no alt text", short(src))
			}
			if err := checkImage(dir, src); err != nil {
				add("<img src=%q>: %v", short(src), err)
			}
		case "script", "link", "iframe", "embed", "object", "source", "video", "audio":
			for _, k := range []string{"src", "href", "data"} {
				if v, ok := attr[k]; ok && !strings.HasPrefix(v, "data:") {
					if u, err := url.Parse(v); err != nil || u.Scheme != "" || u.Host != "" {
						add("<%s %s=%q>: fetched from outside the page", name, k, v)
					} else if err := exists(dir, u.Path); err != nil {
						add("<%s %s=%q>: %v", name, k, v, err)
					}
				}
			}
		}
	}
	for _, a := range anchors {
		frag, err := url.PathUnescape(a)
		if err != nil {
			frag = a
		}
		if ids[frag] == 0 {
			add("<a href=\"#%s\">: no element with this id", a)
		}
	}
	return errors.Join(problems...)
}

// short abbreviates a data: URI for messages.
func short(s string) string {
	if len(s) > 60 && strings.HasPrefix(s, "data:") {
		return s[:40] + "…"
	}
	return s
}

// checkImage checks that src (relative or data:) gives a non-empty image.
func checkImage(dir, src string) error {
	var (
		b    []byte
		kind string
	)
	switch {
	case src == "":
		return errors.New("no src")
	case strings.HasPrefix(src, "data:"):
		head, data, ok := strings.Cut(strings.TrimPrefix(src, "data:"), ",")
		if !ok {
			return errors.New("data: URI without ','")
		}
		params := strings.Split(head, ";")
		kind = params[0]
		if params[len(params)-1] == "base64" {
			var err error
			if b, err = base64.StdEncoding.DecodeString(data); err != nil {
				return fmt.Errorf("data: URI: %v", err)
			}
		} else {
			s, err := url.PathUnescape(data)
			if err != nil {
				return fmt.Errorf("data: URI: %v", err)
			}
			b = []byte(s)
		}
	default:
		u, err := url.Parse(src)
		if err != nil {
			return err
		}
		if u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/") {
			return errors.New("not relative to the page: viewing it would need the network or this machine's files")
		}
		if b, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(u.Path))); err != nil {
			return fmt.Errorf("missing image: %v", err)
		}
		kind = imageTypes[strings.ToLower(filepath.Ext(u.Path))]
	}
	if len(b) == 0 {
		return errors.New("empty image")
	}
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		if kind != "image/png" {
			return fmt.Errorf("a PNG image declared as %q", kind)
		}
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		if kind != "image/jpeg" {
			return fmt.Errorf("a JPEG image declared as %q", kind)
		}
	case bytes.Contains(b[:min(len(b), 512)], []byte("<svg")):
		if kind != "image/svg+xml" {
			return fmt.Errorf("an SVG image declared as %q", kind)
		}
	default:
		return fmt.Errorf("not a PNG, JPEG or SVG image (declared %q)", kind)
	}
	return nil
}
