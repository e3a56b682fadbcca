package experiment

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTableText(t *testing.T) {
	tb := NewTable("heuristic", "avg dfb", "wins", "|", "paper")
	tb.AddRow("EMCT*", "1.50", "12", "|", "1.2")
	tb.AddRow("RANDOM1W", "-10.25", "3", "|", "n/a")
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"heuristic  avg dfb  wins  |  paper\n" +
		"---------  -------  ----  -  -----\n" +
		"EMCT*         1.50    12  |  1.2\n" +
		"RANDOM1W    -10.25     3  |  n/a\n"
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestTableMarkdownAndCSV(t *testing.T) {
	tb := NewTable("name", "x", "|", "paper x")
	tb.AddRow("a|b", "1.5%", "|", "2")
	tb.AddRow(`q"uote`, "", "|", "10")
	var md bytes.Buffer
	if err := tb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"| name   |    x | ‖   | paper x |\n" +
		"| ------ | ---: | --- | ------: |\n" +
		"| a\\|b   | 1.5% | ‖   |       2 |\n" +
		"| q\"uote |      | ‖   |      10 |\n"
	if md.String() != want {
		t.Errorf("WriteMarkdown:\n%s\nwant:\n%s", md.String(), want)
	}
	var c bytes.Buffer
	if err := tb.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || strings.Join(recs[0], ",") != "name,x,paper x" || recs[2][0] != `q"uote` || recs[1][0] != "a|b" {
		t.Errorf("CSV records %q", recs)
	}
}

func TestFormatFloat(t *testing.T) {
	for _, c := range []struct {
		x    float64
		prec int
		want string
	}{
		{1.005, 1, "1.0"}, {-0.0001, 2, "0.00"}, {-1.5, 1, "-1.5"}, {math.NaN(), 2, "NaN"}, {math.Inf(1), 2, "+Inf"}, {12.345, 0, "12"},
	} {
		if got := FormatFloat(c.x, c.prec); got != c.want {
			t.Errorf("FormatFloat(%g, %d) = %q, want %q", c.x, c.prec, got, c.want)
		}
	}
}

func TestWriteCSVAndJSONFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.csv")
	if err := WriteCSVFile(p, []string{"w_min", "dfb"}, [][]string{{"1", "0.5"}, {"2", "1,5"}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "w_min,dfb\n1,0.5\n2,\"1,5\"\n" {
		t.Errorf("CSV file %q", b)
	}
	j := filepath.Join(dir, "s.json")
	if err := WriteJSONFile(j, map[string]any{"b": 1, "a": "<x>"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(j)
	if string(b) != "{\n  \"a\": \"<x>\",\n  \"b\": 1\n}\n" {
		t.Errorf("JSON file %q", b)
	}
	if err := WriteJSONFile(j, math.NaN()); err == nil {
		t.Error("NaN accepted by WriteJSONFile")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
}
