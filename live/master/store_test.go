package master

import "testing"

// TestTokensVersion: the version the master polls changes with every
// change of the tokens, made by any connection, and only then.
func TestTokensVersion(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := OpenDB(dir) // another process's `volsched master token …`
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ver := func() int64 {
		t.Helper()
		v, err := db.TokensVersion()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := ver()
	if _, err := db.Tokens(); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMeta("x", "y"); err != nil {
		t.Fatal(err)
	}
	if v := ver(); v != v0 {
		t.Fatalf("version %d → %d without a change of the tokens", v0, v)
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"add", func() error { _, err := other.AddToken("a"); return err }},
		{"add many", func() error { _, err := other.AddTokens([]string{"b", "c"}); return err }},
		{"revoke", func() error { return other.RevokeToken("a") }},
		{"add again", func() error { _, err := other.AddToken("a"); return err }},
	}
	for _, st := range steps {
		before := ver()
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if v := ver(); v == before {
			t.Errorf("%s: version still %d", st.name, v)
		}
	}
	// A refused change (a second token for a worker) changes nothing.
	before := ver()
	if _, err := other.AddToken("b"); err == nil {
		t.Fatal("a second token for b was made")
	}
	if v := ver(); v != before {
		t.Errorf("refused add: version %d → %d", before, v)
	}
}
