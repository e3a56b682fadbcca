package node

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// ReadPeers reads a membership (Config.Peers): arg is a comma-separated
// list of host:port addresses, or a file of them, one a line (blank lines
// and lines starting with # skipped). An argument without a comma that is
// not a regular file is taken for a list of one. Errors name the entry (and
// the file's line) and what is wanted.
func ReadPeers(arg string) ([]string, error) {
	type entry struct {
		s    string
		line int // in the file (0: from a list)
	}
	var list []entry
	if st, err := os.Stat(arg); strings.Contains(arg, ",") || err != nil || !st.Mode().IsRegular() {
		for _, s := range strings.Split(arg, ",") {
			list = append(list, entry{s, 0})
		}
	} else {
		f, err := os.Open(arg)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for k := 1; sc.Scan(); k++ {
			if s := strings.TrimSpace(sc.Text()); s != "" && !strings.HasPrefix(s, "#") {
				list = append(list, entry{s, k})
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", arg, err)
		}
	}
	var out []string
	for _, e := range list {
		p := strings.TrimSpace(e.s)
		if p == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(p); err != nil {
			if e.line > 0 {
				return nil, fmt.Errorf("%s line %d: %q: want host:port", arg, e.line, p)
			}
			return nil, fmt.Errorf("%q: want host:port", p)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("no address")
	}
	return out, nil
}
