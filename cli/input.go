package cli

import (
	"fmt"
	"io"
	"os"
)

// readInput reads a file named on the command line; "-" is standard input.
// It returns the data and the name to use in error messages.
func readInput(path string, stdin io.Reader) ([]byte, string, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, "<stdin>", fmt.Errorf("reading standard input: %w", err)
		}
		return data, "<stdin>", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, err
	}
	return data, path, nil
}
