package prompt

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// describe finds a skill's one-line description: the front matter's
// description, else the first line of text (a heading's '#' removed).
func describe(content string) string {
	content = strings.TrimPrefix(content, "\uFEFF")
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	body := lines
	if front, rest, ok := frontMatter(lines); ok {
		if d := yamlScalar(front, "description"); d != "" {
			if d = clip(d); d != "" {
				return d
			}
		}
		body = rest
	}
	for _, line := range body {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		// Skip setext underlines and rules, which carry no words.
		if t == "" || strings.Trim(t, "-=*_ ") == "" {
			continue
		}
		if d := clip(t); d != "" {
			return d
		}
	}
	return noDescription
}

// frontMatter splits a leading "---" ... "---" block off lines.
func frontMatter(lines []string) (front, rest []string, ok bool) {
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return nil, lines, false
	}
	for i := 1; i < len(lines); i++ {
		if l := strings.TrimRight(lines[i], " \t"); l == "---" || l == "..." {
			return lines[1:i], lines[i+1:], true
		}
	}
	return nil, lines, false
}

// yamlScalar returns the top-level key's string value from YAML lines. It
// covers what front matter uses: plain, "double" and 'single' quoted
// values (which may continue over lines), and | or > block scalars. Lines
// are joined with spaces; the result is folded to one line by clip anyway.
func yamlScalar(lines []string, key string) string {
	for i, line := range lines {
		rest, found := strings.CutPrefix(line, key+":")
		if !found {
			continue
		}
		value := strings.TrimSpace(rest)
		// Continuation lines are the indented (or blank) ones that follow.
		var more []string
		for _, l := range lines[i+1:] {
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
				break
			}
			more = append(more, strings.TrimSpace(l))
		}
		switch {
		case strings.HasPrefix(value, `"`):
			return doubleQuoted(strings.Join(append([]string{value}, more...), " "))
		case strings.HasPrefix(value, "'"):
			return singleQuoted(strings.Join(append([]string{value}, more...), " "))
		case strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">"):
			return strings.Join(more, " ")
		default:
			if j := strings.Index(value, " #"); j >= 0 {
				value = value[:j]
			}
			return strings.Join(append([]string{value}, more...), " ")
		}
	}
	return ""
}

// doubleQuoted decodes a YAML double-quoted scalar starting at s[0]; an
// unterminated one yields what was there.
func doubleQuoted(s string) string {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n', 't', 'r':
				b.WriteByte(' ')
			case 'u', 'U', 'x':
				n := 2
				if e == 'u' {
					n = 4
				} else if e == 'U' {
					n = 8
				}
				if i+n < len(s) {
					if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
						b.WriteRune(rune(v))
						i += n
						continue
					}
				}
				b.WriteByte(e)
			default: // \" \\ \/ and the rest stand for themselves
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// singleQuoted decodes a YAML single-quoted scalar starting at s[0], where
// ” stands for one quote.
func singleQuoted(s string) string {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String()
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// clip folds s to one line without control characters and cuts it to
// MaxDescriptionBytes on a rune boundary.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= MaxDescriptionBytes {
		return s
	}
	const ellipsis = "…"
	cut := MaxDescriptionBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + ellipsis
}
