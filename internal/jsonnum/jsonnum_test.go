package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

func TestConvention(t *testing.T) {
	v := []Float{1.5, Float(math.Inf(1)), Float(math.Inf(-1)), Float(math.NaN()), Float(math.Copysign(0, -1)), 0, 1e300}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[1.5,null,null,null,0,0,1e+300]"; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
	var back []Float
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(back[1])) || back[0] != 1.5 || back[6] != 1e300 {
		t.Errorf("read back %v", back)
	}
}
