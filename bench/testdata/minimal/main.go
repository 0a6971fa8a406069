// Command minimal is the cold-start baseline: a Go program that reads one
// LSP frame and answers it, with none of scv's work in between.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	length := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			os.Exit(1)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if _, err := io.CopyN(io.Discard, r, int64(length)); err != nil {
		os.Exit(1)
	}
	body := `{"jsonrpc":"2.0","id":1,"result":{}}`
	fmt.Printf("Content-Length: %d\r\n\r\n%s", len(body), body)
	_, _ = io.Copy(io.Discard, r)
}
