package slotsim

// Decision is what a run decided at one slot (decision), for the tests.
type Decision = decision

// Observe makes sm call f with every decision of every run.
func Observe(sm *Simulator, f func(Decision)) { sm.observe = f }
