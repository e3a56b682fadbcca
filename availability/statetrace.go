package availability

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Interval is a stretch of time [Start, End) a host spent in one state.
type Interval struct {
	Start, End float64
	State      State
}

// HostTrace is one host's intervals, sorted by start and non-overlapping.
// Time not covered by an interval is a gap (its state is chosen when the
// trace is cut into slots).
type HostTrace struct {
	ID, Name  string
	Intervals []Interval
}

// StateTrace is the 3-state availability history of several hosts over a
// common span [Start, End) (the earliest start and latest end of any
// interval).
type StateTrace struct {
	Hosts      []HostTrace
	Start, End float64
}

// CSVHeader is the optional first line of a state-interval CSV file.
const CSVHeader = "host,start,end,state"

// ReadStateCSV reads a state-interval trace: one interval per line,
//
//	host,start,end,state
//
// host a non-empty name, start < end times in seconds (finite decimal
// numbers, any origin), state u|r|d (or up|reclaimed|down, any case). The
// header line "host,start,end,state" may come first; '#' starts a comment
// line; blank lines are skipped. A host's intervals may come in any order
// and interleaved with other hosts' but must not overlap. Errors name the
// source, the line, the field and the value.
func ReadStateCSV(r io.Reader, source string) (*StateTrace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	type lineIv struct {
		Interval
		line int
	}
	byHost := map[string][]lineIv{}
	var order []string
	line, data := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(strings.TrimRight(sc.Text(), "\r"))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		data++
		f := strings.Split(text, ",")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		if data == 1 && strings.EqualFold(strings.Join(f, ","), CSVHeader) {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: %d comma-separated fields, want 4 (%s)", source, line, len(f), CSVHeader)
		}
		if f[0] == "" {
			return nil, fmt.Errorf("%s:%d: host is empty, want a name", source, line)
		}
		var iv lineIv
		iv.line = line
		var err error
		if iv.Start, err = parseSeconds(f[1]); err != nil {
			return nil, fmt.Errorf("%s:%d: start = %q: %v", source, line, f[1], err)
		}
		if iv.End, err = parseSeconds(f[2]); err != nil {
			return nil, fmt.Errorf("%s:%d: end = %q: %v", source, line, f[2], err)
		}
		if !(iv.End > iv.Start) {
			return nil, fmt.Errorf("%s:%d: end = %s, want a time after start = %s", source, line, f[2], f[1])
		}
		if iv.State, err = ParseState(strings.ToLower(f[3])); err != nil {
			return nil, fmt.Errorf("%s:%d: state = %q: want u, r or d (up, reclaimed, down)", source, line, f[3])
		}
		if _, ok := byHost[f[0]]; !ok {
			order = append(order, f[0])
		}
		byHost[f[0]] = append(byHost[f[0]], iv)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", source, line+1, err)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: no intervals, want lines %s", source, CSVHeader)
	}
	st := &StateTrace{Start: math.Inf(1), End: math.Inf(-1)}
	for _, name := range order {
		ivs := byHost[name]
		sort.SliceStable(ivs, func(a, b int) bool { return ivs[a].Start < ivs[b].Start })
		h := HostTrace{ID: name, Name: name}
		for k, iv := range ivs {
			if k > 0 && iv.Start < ivs[k-1].End {
				p := ivs[k-1]
				return nil, fmt.Errorf("%s:%d: host %s: interval [%v, %v) overlaps the interval of line %d [%v, %v)", source, iv.line, name, iv.Start, iv.End, p.line, p.Start, p.End)
			}
			h.Intervals = append(h.Intervals, iv.Interval)
		}
		st.Start = math.Min(st.Start, h.Intervals[0].Start)
		st.End = math.Max(st.End, h.Intervals[len(h.Intervals)-1].End)
		st.Hosts = append(st.Hosts, h)
	}
	return st, nil
}

func parseSeconds(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a finite time in seconds")
	}
	return v, nil
}

// WriteStateCSV writes t in the format ReadStateCSV reads, with the header
// line. Hosts are written by ID.
func WriteStateCSV(w io.Writer, t *StateTrace) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, CSVHeader)
	for _, h := range t.Hosts {
		for _, iv := range h.Intervals {
			fmt.Fprintf(bw, "%s,%s,%s,%s\n", h.ID, strconv.FormatFloat(iv.Start, 'g', -1, 64),
				strconv.FormatFloat(iv.End, 'g', -1, 64), iv.State)
		}
	}
	return bw.Flush()
}
