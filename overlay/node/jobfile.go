package node

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/volsched/volsched/internal/jsonin"
)

// JobSpec describes a bag by its files, as the command line and a JSON
// job description give it. Paths in a description file are relative to
// the file's directory.
type JobSpec struct {
	Name   string  `json:"name,omitempty"`
	Tasks  int     `json:"tasks,omitempty"`  // 0: one per input file
	Length float64 `json:"length"`           // MI per task
	Mem    float64 `json:"memory,omitempty"` // MB
	Disk   float64 `json:"disk,omitempty"`   // MB
	// Deadline, seconds after submission (0: none).
	Deadline float64 `json:"deadline,omitempty"`
	Program  string  `json:"program"`          // executable file
	Inputs   string  `json:"inputs,omitempty"` // directory: one file per task, in name order
}

// LoadJobSpec reads a JSON job description by the rules of the project's
// JSON inputs (internal/jsonin: unknown fields refused, the field named).
func LoadJobSpec(path string) (JobSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return JobSpec{}, err
	}
	var s JobSpec
	if err := jsonin.Decode(data, &s, "job description "+path); err != nil {
		return JobSpec{}, err
	}
	dir := filepath.Dir(path)
	if s.Program != "" && !filepath.IsAbs(s.Program) {
		s.Program = filepath.Join(dir, s.Program)
	}
	if s.Inputs != "" && !filepath.IsAbs(s.Inputs) {
		s.Inputs = filepath.Join(dir, s.Inputs)
	}
	return s, nil
}

// Job reads the program and the inputs and returns the bag to submit.
func (s JobSpec) Job() (*Job, error) {
	if s.Program == "" {
		return nil, fmt.Errorf("program: none given: want the executable's file")
	}
	prog, err := os.ReadFile(s.Program)
	if err != nil {
		return nil, fmt.Errorf("program: %w", err)
	}
	j := &Job{Name: s.Name, Tasks: s.Tasks, Length: s.Length, Mem: s.Mem, Disk: s.Disk, Deadline: s.Deadline, Program: prog}
	if j.Name == "" {
		j.Name = filepath.Base(s.Program)
	}
	if s.Inputs != "" {
		ents, err := os.ReadDir(s.Inputs)
		if err != nil {
			return nil, fmt.Errorf("inputs: %w", err)
		}
		var names []string
		for _, e := range ents {
			if e.Type().IsRegular() {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("inputs %s: no file: want one per task", s.Inputs)
		}
		if j.Tasks == 0 {
			j.Tasks = len(names)
		}
		if j.Tasks != len(names) {
			return nil, fmt.Errorf("tasks %d but %d input files in %s: want one per task", j.Tasks, len(names), s.Inputs)
		}
		for _, nm := range names {
			b, err := os.ReadFile(filepath.Join(s.Inputs, nm))
			if err != nil {
				return nil, fmt.Errorf("inputs: %w", err)
			}
			j.Inputs = append(j.Inputs, b)
		}
	}
	if math.IsNaN(j.Length) {
		return nil, fmt.Errorf("length NaN: want a finite value > 0")
	}
	if err := j.validate(); err != nil {
		return nil, err
	}
	return j, nil
}
