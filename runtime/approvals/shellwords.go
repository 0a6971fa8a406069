package approvals

import (
	"strings"
	"unicode"
)

// shellSyntax are the characters that make a command more than one plain
// program call: separators and operators (; & |), substitutions ($ and
// backticks), redirections (< >), grouping, globbing, escapes, comments,
// home expansion and line breaks. A command holding any of them, outside
// single quotes or inside double quotes, never matches a rule, whatever
// its prefix: "go test; rm -rf x" starts like "go test".
const shellSyntax = ";&|$`<>(){}[]*?\\#~!\n\r"

// Argv splits a shell command into its words when it is a plain call: words
// separated by blanks, with '…' and "…" quoting. It reports false when the
// command holds shell syntax (see shellSyntax), an unclosed quote, or no
// word, so that no rule can match it.
func Argv(command string) ([]string, bool) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == '\'':
			end := strings.IndexByte(command[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			quoted := command[i+1 : i+1+end]
			if strings.ContainsAny(quoted, "\n\r") {
				return nil, false
			}
			word.WriteString(quoted)
			inWord = true
			i += end + 1
		case c == '"':
			end := strings.IndexByte(command[i+1:], '"')
			if end < 0 {
				return nil, false
			}
			quoted := command[i+1 : i+1+end]
			// Inside double quotes $, ` and \ still act.
			if strings.ContainsAny(quoted, "$`\\\n\r") {
				return nil, false
			}
			word.WriteString(quoted)
			inWord = true
			i += end + 1
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case strings.IndexByte(shellSyntax, c) >= 0 || c < 0x20 || c == 0x7f:
			return nil, false
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	if len(words) == 0 {
		return nil, false
	}
	// "FOO=bar go test" runs go test with a changed environment: not the
	// call a rule for go names.
	if strings.Contains(words[0], "=") {
		return nil, false
	}
	return words, true
}

// plainWord reports whether a word reads as a subcommand ("test",
// "status", "run-tests"): what a suggested rule keeps after the program.
func plainWord(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' {
			return false
		}
	}
	return true
}
