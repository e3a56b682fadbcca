package montecarlo

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestReproduce: in the quick reproduction (seed 1) every formula that
// holds is within ZLimit standard errors of the simulation and the printed
// E(S)(W) is not; the text has one line per row.
func TestReproduce(t *testing.T) {
	r, err := Reproduce(context.Background(), 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Single) != 4*5 || len(r.Sets) != 3*4 {
		t.Fatalf("%d rows of chains and %d of sets, want 20 and 12", len(r.Single), len(r.Sets))
	}
	for _, x := range append(append([]Row(nil), r.Single...), r.Sets...) {
		switch {
		case x.Expect == Holds && !(x.Z() < ZLimit):
			t.Errorf("%s %s: z = %.1f, want < %d", x.Subject, x.Quantity, x.Z(), ZLimit)
		case x.Quantity == "E(S)(W) as printed" && !(x.Z() > ZLimit):
			t.Errorf("%s %s: z = %.1f, want the printed form off (> %d)", x.Subject, x.Quantity, x.Z(), ZLimit)
		}
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasPrefix(text, "seed 1; chains from the papers' generator") || strings.Count(text, "P+ (Lemma 1)") != 4 || strings.Count(text, "E(S)(W) as printed") != 3 {
		t.Errorf("text:\n%s", text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Reproduce(ctx, 1, true); err == nil {
		t.Error("a cancelled reproduction returned no error")
	}
}
