package figure

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is the Okabe–Ito palette (Okabe & Ito, "Color Universal
// Design", 2008), safe for the common colour-vision deficiencies, without
// its black (kept for the paper's values) and ordered so that the first
// colours are the most distinct on white; yellow, the weakest on white,
// comes last.
var Palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// PaperColor draws published values that match none of our series.
var PaperColor = color.RGBA{0x00, 0x00, 0x00, 0xFF}

// Markers are the point shapes, one per series in turn: for our values the
// filled shapes and the line shapes first (in gonum, CircleGlyph, BoxGlyph
// and PyramidGlyph are filled; RingGlyph, SquareGlyph and TriangleGlyph
// are their outlines), the outlines only from the sixth series on.
// Published values use the outlines (paperMarkers), larger, on a dashed
// line.
var markers = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{},
	draw.PlusGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
}

var paperMarkers = []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}}

// dashes are the line patterns: solid for the first len(Palette) series,
// then dotted, dash-dotted, short-dashed, so that colour, marker and dash
// together tell apart up to 28 series. Dotted comes first: the eighth of
// our series must not look like the paper's values (long dashes,
// paperDashes, and outline markers).
var dashes = [][]vg.Length{
	nil,
	{vg.Points(1), vg.Points(2)},
	{vg.Points(5), vg.Points(2), vg.Points(1), vg.Points(2)},
	{vg.Points(3), vg.Points(2)},
}

// paperDashes is the pattern of a series of published values.
var paperDashes = []vg.Length{vg.Points(7), vg.Points(3)}

// Text sizes, in points. Readable when the figure is printed at its size
// (17 cm wide) or shown at 100 % in a browser.
const (
	titleSize   = 13
	sourceSize  = 11
	labelSize   = 12
	tickSize    = 11
	legendSize  = 11
	captionSize = 10
)

// fontFamily is the typeface of every text: Liberation Sans, metrically
// compatible with Arial and Helvetica (the SVG names those as fallbacks).
var fontFamily = font.Font{Typeface: "Liberation", Variant: "Sans"}

func style(size vg.Length, bold, italic bool) text.Style {
	f := fontFamily
	// The values of golang.org/x/image/font's WeightBold and StyleItalic,
	// written as numbers so that this package need not import it.
	if bold {
		f.Weight = 3
	}
	if italic {
		f.Style = 1
	}
	return text.Style{
		Color:   color.Black,
		Font:    font.From(f, size),
		Handler: plot.DefaultTextHandler,
	}
}

// Fallback slack: a viewer without Liberation Sans draws the SVG's text in
// another sans-serif (DejaVu Sans is up to about 12 % wider). Legend
// columns and caption lines are laid out for text this much wider than
// measured, so that they still fit the canvas.
const fallbackSlack = 1.2

// substitutes replace characters Liberation Sans lacks but texts about the
// papers use.
var substitutes = strings.NewReplacer("∈", "in", "∉", "not in", "∼", "~", "⌈", "ceil(", "⌉", ")", "⌊", "floor(", "⌋", ")")

// drawable returns s with substitutes applied, or an error naming the
// first character that sty's font cannot draw.
func drawable(sty text.Style, s string) (string, error) {
	s = substitutes.Replace(s)
	ff := sty.Handler.Cache().Lookup(sty.Font, sty.Font.Size)
	for _, r := range s {
		if r == ' ' || r == '\n' {
			continue
		}
		if i, err := ff.Face.GlyphIndex(nil, r); err != nil || i == 0 {
			return "", fmt.Errorf("character %q (U+%04X) is not in the font (Liberation Sans), write it otherwise", r, r)
		}
	}
	return s, nil
}
