package regname

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Table is a table of registered things of type T by name (a model's
// heuristics): a name once regardless of case, a random-stream label once;
// the things a paper defines first, in the order of their labels (their
// positions in the paper's list), then the others by name, whatever the
// order of registration. It is safe for concurrent use; its zero value is
// empty and ready.
type Table[T any] struct {
	mu     sync.RWMutex
	byName map[string]T
	byFold map[string]string // lower-case name → name
	labels map[uint64]string // label → name
	paper  []entry[T]        // by label
	others []entry[T]        // by name
}

type entry[T any] struct {
	name  string
	label uint64
	v     T
}

// Add registers v under name with a random-stream label; paper puts it
// with the paper's (by label) rather than with the others (by name). It
// is an error (naming what, "heuristic") when the name is taken in any
// case or the label is another's.
func (t *Table[T]) Add(what, name string, label uint64, paper bool, v T) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byName == nil {
		t.byName, t.byFold, t.labels = map[string]T{}, map[string]string{}, map[uint64]string{}
	}
	fold := strings.ToLower(name)
	if o, ok := t.byFold[fold]; ok {
		return fmt.Errorf("%s %q: the name of %s %s is taken, want another one", what, name, what, o)
	}
	if o, ok := t.labels[label]; ok {
		return fmt.Errorf("%s %q: its random stream's label %#x is %s %s's, want another name", what, name, label, what, o)
	}
	t.byName[name], t.byFold[fold], t.labels[label] = v, name, name
	e := entry[T]{name, label, v}
	if paper {
		i, _ := slices.BinarySearchFunc(t.paper, label, func(x entry[T], l uint64) int { return cmp.Compare(x.label, l) })
		t.paper = slices.Insert(t.paper, i, e)
	} else {
		i, _ := slices.BinarySearchFunc(t.others, name, func(x entry[T], n string) int { return strings.Compare(x.name, n) })
		t.others = slices.Insert(t.others, i, e)
	}
	return nil
}

// Get finds name as registered, or regardless of case with foldCase.
func (t *Table[T]) Get(name string, foldCase bool) (v T, ok bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if foldCase {
		if n, found := t.byFold[strings.ToLower(name)]; found {
			name = n
		}
	}
	v, ok = t.byName[name]
	return v, ok
}

// All returns everything registered: the paper's by label, then the
// others by name.
func (t *Table[T]) All() []T { return t.list(true) }

// Paper returns the paper's, by label.
func (t *Table[T]) Paper() []T { return t.list(false) }

func (t *Table[T]) list(others bool) []T {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]T, 0, len(t.paper)+len(t.others))
	for _, e := range t.paper {
		out = append(out, e.v)
	}
	if others {
		for _, e := range t.others {
			out = append(out, e.v)
		}
	}
	return out
}

// ParseList looks up a list of names with parse; a thing named twice (by
// equal names, as name gives them) is an error naming what. An empty list
// is all.
func ParseList[T any](what string, names []string, parse func(string) (T, error), name func(T) string, all func() []T) ([]T, error) {
	if len(names) == 0 {
		return all(), nil
	}
	out := make([]T, 0, len(names))
	for _, n := range names {
		v, err := parse(n)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(x T) bool { return name(x) == name(v) }) {
			return nil, fmt.Errorf("%s %s named twice, want each once", what, name(v))
		}
		out = append(out, v)
	}
	return out, nil
}
