package failure

import (
	"math"
	"slices"
	"testing"

	"github.com/volsched/volsched/des"
)

func TestChurnMedian(t *testing.T) {
	for _, m := range []des.Time{60 * des.Minute, 30 * des.Minute, 15 * des.Minute, 5 * des.Minute} {
		c := Churn{Median: m}
		var s []float64
		for node := int32(0); node < 200; node++ {
			for k := uint32(0); k < 50; k++ {
				s = append(s, float64(c.Session(7, node, k)))
			}
		}
		slices.Sort(s)
		med := s[len(s)/2]
		// 10,000 samples: the sample median's relative standard error is about 1/(2·0.5·ln2·100) ≈ 1.4 %.
		if math.Abs(med/float64(m)-1) > 0.06 {
			t.Errorf("median %v: sample median %v", m, des.Time(med))
		}
	}
	c := Churn{Median: des.Minute}
	if c.Session(1, 3, 4) != c.Session(1, 3, 4) || c.Session(1, 3, 4) == c.Session(2, 3, 4) {
		t.Error("sessions not a deterministic function of (seed, node, k)")
	}
}

func TestParseChurn(t *testing.T) {
	for in, want := range map[string]des.Time{"5m": 5 * des.Minute, "60": 60 * des.Minute, "1h": des.Hour, "0": 0, "0s": 0, "0m": 0, "": 0, "1s": des.Second} {
		c, err := ParseChurn(in)
		if err != nil || c.Median != want {
			t.Errorf("ParseChurn(%q) = %v, %v; want %v", in, c.Median, err, want)
		}
	}
	for _, bad := range []string{"-5m", "abc", "NaN", "1e300", "1ns", "999ms", "0.01"} {
		if _, err := ParseChurn(bad); err == nil {
			t.Errorf("ParseChurn(%q): no error", bad)
		}
	}
}

func TestCatastrophe(t *testing.T) {
	c, err := ParseCatastrophe("20%@24h")
	if err != nil || c.Fraction != 0.2 || c.At != 24*des.Hour {
		t.Fatalf("ParseCatastrophe(20%%@24h) = %+v, %v", c, err)
	}
	if c2, err := ParseCatastrophe("0.05@1.5"); err != nil || c2.Fraction != 0.05 || c2.At != 90*des.Minute {
		t.Errorf("ParseCatastrophe(0.05@1.5) = %+v, %v", c2, err)
	}
	for _, bad := range []string{"0.2", "1.5@1h", "0@1h", "x@1h", "0.2@-1h", "0.2@soon"} {
		if _, err := ParseCatastrophe(bad); err == nil {
			t.Errorf("ParseCatastrophe(%q): no error", bad)
		}
	}
	v := c.Victims(3, 1000)
	if len(v) != 200 {
		t.Fatalf("%d victims, want 200", len(v))
	}
	for i := 1; i < len(v); i++ {
		if v[i] <= v[i-1] {
			t.Fatal("victims not strictly increasing (duplicates?)")
		}
	}
	if v[0] < 0 || v[len(v)-1] >= 1000 {
		t.Fatal("victim out of range")
	}
	if !slices.Equal(v, c.Victims(3, 1000)) || slices.Equal(v, c.Victims(4, 1000)) {
		t.Error("victims not a deterministic function of the seed")
	}
	if got := (Catastrophe{Fraction: 1}).Victims(1, 10); len(got) != 10 {
		t.Errorf("fraction 1 of 10: %d victims", len(got))
	}
	// Uniformity: each node is chosen with probability 0.2.
	count := make([]int, 50)
	for s := uint64(0); s < 2000; s++ {
		for _, x := range (Catastrophe{Fraction: 0.2}).Victims(s, 50) {
			count[x]++
		}
	}
	for i, n := range count {
		// mean 400, sd ≈ 17.9; 5 sd
		if n < 310 || n > 490 {
			t.Errorf("node %d chosen %d times in 2000 draws, want about 400", i, n)
		}
	}
}
