package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tok is one token of a message: a word, a number with what is glued to it
// ("9am", "15th", "2h", "9:30", "2/14"), a punctuation mark, a Slack
// reference, or a quotation. s is lowercase; [i, j) is its span in the
// message, so the message text is always cut from what was written.
type tok struct {
	s    string
	i, j int
	kind tokKind
	cap  bool // written with a capital letter ("Mars time")
}

type tokKind uint8

const (
	tWord    tokKind = iota
	tNum             // starts with a digit
	tPunct           // one mark, or "->"
	tChannel         // <#C…|name> or #name
	tUser            // <@U…> or @name
	tQuote           // "…", “…”, '…': s is what is inside, as written
	tOther
)

// lex splits s into tokens. It never fails: what it does not know becomes
// tOther, which no production consumes.
func lex(s string) []tok {
	var out []tok
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += n
		case r == '<' && isURLAt(s, i+1):
			// <https://…|label>: the whole link is text
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				j = len(s) - i - 1
			}
			out = append(out, tok{s: s[i : i+j+1], i: i, j: i + j + 1, kind: tOther})
			i += j + 1
		case r == '<':
			j := strings.IndexByte(s[i:], '>')
			if j > 2 && (s[i+1] == '#' || s[i+1] == '@' || s[i+1] == '!') && !strings.ContainsAny(s[i+1:i+j], " \t\n<") {
				k := tChannel
				if s[i+1] != '#' {
					k = tUser
				}
				out = append(out, tok{s: s[i : i+j+1], i: i, j: i + j + 1, kind: k})
				i += j + 1
				continue
			}
			out = append(out, tok{s: "<", i: i, j: i + 1, kind: tPunct})
			i++
		case r == '@' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			// "today@5p", "@3pm": "at", not a person
			out = append(out, tok{s: "@", i: i, j: i + 1, kind: tPunct})
			i++
		case r == '#' || r == '@':
			t := lexMention(s, i, r)
			out = append(out, t)
			i = t.j
		case r == '"' || r == '“' || r == '‘' || r == '«' || r == '„' || r == '\'' && (i == 0 || !isASCIIAlnum(s[i-1])):
			closer := map[rune]string{'"': `"`, '“': "”", '‘': "’", '\'': "'", '«': "»", '„': "“"}[r]
			k := closingQuote(s[i+n:], closer, r == '\'' || r == '‘')
			if k <= 0 {
				out = append(out, tok{s: s[i : i+n], i: i, j: i + n, kind: tPunct})
				i += n
				continue
			}
			inner := strings.TrimSpace(s[i+n : i+n+k])
			out = append(out, tok{s: inner, i: i, j: i + n + k + len(closer), kind: tQuote})
			i += n + k + len(closer)
		case r == ':' && emojiAt(s, i) > 0:
			// :rotating_light: is one word of the text
			j := i + emojiAt(s, i)
			out = append(out, tok{s: s[i:j], i: i, j: j, kind: tOther})
			i = j
		case isURLAt(s, i):
			j := i
			for j < len(s) && !unicode.IsSpace(rune(s[j])) && s[j] != '>' {
				j++
			}
			for j > i && strings.ContainsRune(".,;:!?)", rune(s[j-1])) {
				j--
			}
			out = append(out, tok{s: s[i:j], i: i, j: j, kind: tOther})
			i = j
		case r >= '0' && r <= '9' && textSpeak(s[i:]) != "":
			// "2morrow", "2day", "2nite": read as the word they spell
			w := textSpeak(s[i:])
			n := len(w)
			out = append(out, tok{s: textSpeakWords[strings.ToLower(s[i:i+n])], i: i, j: i + n, kind: tWord})
			i += n
		case r >= '0' && r <= '9':
			j := scanNumber(s, i)
			out = append(out, tok{s: strings.NewReplacer(".m.", "m", ".m", "m").Replace(strings.ToLower(s[i:j])), i: i, j: j, kind: tNum})
			i = j
		case unicode.IsLetter(r):
			t := lexWord(s, i, r)
			out = append(out, t)
			i = t.j
		case r == '-' && i+1 < len(s) && s[i+1] == '>':
			out = append(out, tok{s: "->", i: i, j: i + 2, kind: tPunct})
			i += 2
		case r == '→' || r == '–' || r == '—':
			v := "-"
			if r == '→' {
				v = "->"
			}
			out = append(out, tok{s: v, i: i, j: i + n, kind: tPunct})
			i += n
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			k := tPunct
			if r >= 0x80 {
				k = tOther // emoji and the like
			}
			out = append(out, tok{s: s[i : i+n], i: i, j: i + n, kind: k})
			i += n
		default:
			out = append(out, tok{s: s[i : i+n], i: i, j: i + n, kind: tOther})
			i += n
		}
		if k := len(out) - 1; k > 0 && out[k].s == "clock" && out[k-1].s == "o" {
			out[k-1] = tok{s: "o'clock", i: out[k-1].i, j: out[k].j, kind: tWord} // "9 o clock"
			out = out[:k]
		}
	}
	return out
}

// lexWord reads the word at s[i], whose first letter is r: letters and
// digits, an apostrophe inside ("o'clock"), and "a.m."/"p.m." as am/pm.
func lexWord(s string, i int, r rune) tok {
	j := i
	for j < len(s) {
		r2, n2 := utf8.DecodeRuneInString(s[j:])
		if unicode.IsLetter(r2) || unicode.IsDigit(r2) {
			j += n2
			continue
		}
		// o'clock, don't: an apostrophe inside a word.
		if (r2 == '\'' || r2 == '’') && j+n2 < len(s) && isASCIILetter(s[j+n2]) {
			j += n2
			continue
		}
		break
	}
	w := strings.ToLower(s[i:j])
	// a.m. and p.m.
	if (w == "a" || w == "p") && strings.HasPrefix(strings.ToLower(s[j:]), ".m") {
		j += 2
		if j < len(s) && s[j] == '.' {
			j++
		}
		w += "m"
	}
	if fix, ok := spellingFixes[w]; ok {
		w = fix // "b4", "tommorow": read as the word meant
	}
	return tok{s: strings.ReplaceAll(w, "’", "'"), i: i, j: j, kind: tWord, cap: unicode.IsUpper(r)}
}

// lexMention reads "#channel" or "@person" at s[i] (r is # or @): a lone
// sign is punctuation, and "#42" a number.
func lexMention(s string, i int, r rune) tok {
	j := i + 1
	// Slack channel names are letters, digits, - and _; a person's
	// name may also hold dots
	for j < len(s) && (isASCIIAlnum(s[j]) || s[j] == '-' || s[j] == '_' || s[j] == '.' && r == '@') {
		j++
	}
	for j > i+1 && s[j-1] == '.' {
		j--
	}
	if j == i+1 {
		return tok{s: s[i : i+1], i: i, j: i + 1, kind: tPunct}
	}
	k := tChannel
	if r == '@' {
		k = tUser
	}
	if r == '#' && strings.Trim(s[i+1:j], "0123456789") == "" {
		k = tNum // "PR #42", "ticket #4521": a number, not a channel
	}
	return tok{s: strings.ToLower(s[i:j]), i: i, j: j, kind: k}
}

// closingQuote is the index in s of the mark that closes a quotation, or
// -1. For single quotes an apostrophe inside a word ("don't") does not
// close it.
func closingQuote(s, closer string, single bool) int {
	for off := 0; ; {
		k := strings.Index(s[off:], closer)
		if k < 0 {
			return -1
		}
		k += off
		e := k + len(closer)
		inWord := k > 0 && isASCIIAlnum(s[k-1]) && e < len(s) && isASCIIAlnum(s[e])
		if !single || !inWord {
			return k
		}
		off = e
	}
}

// emojiAt is the length of a Slack emoji code (":tada:") at s[i], or 0.
func emojiAt(s string, i int) int {
	j := i + 1
	for j < len(s) && (isASCIIAlnum(s[j]) || s[j] == '_' || s[j] == '+' || s[j] == '-') {
		j++
	}
	if j > i+1 && j < len(s) && s[j] == ':' && !(s[i+1] >= '0' && s[i+1] <= '9') {
		return j + 1 - i
	}
	return 0
}

// isURLAt: a link is text, whatever digits it holds.
func isURLAt(s string, i int) bool {
	rest := strings.ToLower(s[i:min(len(s), i+8)])
	return strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "www.")
}

// scanNumber reads a number and what is glued to it: "9", "9:30",
// "9.30", "1.5", "2/14", "7/13/2027", "2026-12-03", "2026-12-03t09:00",
// "9am", "15th", "17h30", "1d".
func scanNumber(s string, i int) int {
	j := digits(s, i)
	// 2026-12-03 (and a time glued with T)
	if j-i == 4 && j+6 <= len(s) && s[j] == '-' && digits(s, j+1) == j+3 && s[j+3] == '-' && digits(s, j+4) == j+6 {
		j += 6
		if j+6 <= len(s) && (s[j] == 'T' || s[j] == 't') && digits(s, j+1) == j+3 && s[j+3] == ':' && digits(s, j+4) == j+6 {
			j += 6
			if j+3 <= len(s) && s[j] == ':' && digits(s, j+1) == j+3 {
				j += 3
			}
		}
		if j < len(s) && (s[j] == 'Z' || s[j] == 'z') {
			j++
		}
		return j
	}
	for j < len(s) && (s[j] == ':' || s[j] == '.' || s[j] == '/') && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
		j = digits(s, j+1)
	}
	k := j
	for k < len(s) && isASCIILetter(s[k]) {
		k++
	}
	if k == j+1 && (s[j]|0x20 == 'a' || s[j]|0x20 == 'p') && k+1 < len(s) && s[k] == '.' && s[k+1]|0x20 == 'm' && (k+2 == len(s) || !isASCIILetter(s[k+2])) {
		// "4a.m.": one time, read as 4am
		j = k + 2
		if j < len(s) && s[j] == '.' {
			j++
		}
		return j
	}
	if k > j && k-j <= 4 {
		j = k
		if s[j-1] == 'h' || s[j-1] == 'H' {
			j = digits(s, j) // 17h30, and 1h30m
			for k := j; k < len(s) && isASCIILetter(s[k]) && k-j < 4; k++ {
				if k+1 == len(s) || !isASCIILetter(s[k+1]) {
					if u := unit(strings.ToLower(s[j : k+1])); u == "minute" {
						j = k + 1
					}
				}
			}
		}
	}
	return j
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isASCIIAlnum(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' }

// spellingFixes are text speak that starts with a letter, read as the
// word it spells. Misspelt days are not here: two edits from a day ask
// (NL_SPEC 20).
var spellingFixes = map[string]string{"b4": "before", "mornin": "morning", "evenin": "evening"}

// textSpeakWords are days said in text speak, read as the word.
var textSpeakWords = map[string]string{"2morrow": "tomorrow", "2moro": "tomorrow", "2morow": "tomorrow", "2mrw": "tomorrow",
	"2mro": "tomorrow", "2day": "today", "2nite": "tonight", "2night": "tonight"}

// textSpeak is the text-speak word s begins with, as written; "" when none.
func textSpeak(s string) string {
	end := 0
	for end < len(s) && (isASCIIAlnum(s[end])) {
		end++
	}
	if _, ok := textSpeakWords[strings.ToLower(s[:end])]; ok {
		return s[:end]
	}
	return ""
}
