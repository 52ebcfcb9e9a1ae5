package ui

import (
	"html"
	"html/template"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Markdown renders a document's text for the reader as HTML: the small
// subset of Markdown the platforms' texts use, and nothing more.
//
//   - "# Title" to "###### Title" (ATX headings) are <h2> to <h6>: the
//     page's <h1> is the document's title, so "#" is one level below it.
//   - Lines starting with "- ", "* " or "+ " are unordered list items,
//     "1. " or "1) " ordered ones (each <li> keeps its own number);
//     deeper indentation nests a list in the item above. An indented line
//     under an item continues it.
//   - **strong**, __strong__, *emphasis*, _emphasis_, nested; ***both***.
//     An underscore inside a word (snake_case) is a plain underscore.
//   - A backslash before a punctuation mark makes it plain (\*, \#).
//   - Every other line is text; lines run on in one paragraph, each
//     on its own line (<br>), as the platforms' line-per-block texts
//     (laws, rulings) need; a blank line ends a paragraph.
//
// Everything else is text: every character of the input reaches the page
// escaped, and the only markup in the output is the fixed set of tags
// above, without attributes but an ordered item's value. Links and HTML
// in the text are shown as written, never followed or interpreted. The
// work is linear in the input's length (emphasis is matched with one
// stack, each delimiter pushed and popped at most once).
func Markdown(text string) template.HTML {
	var r renderer
	text = strings.ReplaceAll(text, "\r\n", "\n")
	for _, line := range strings.Split(text, "\n") {
		r.line(line)
	}
	r.closeParagraph()
	r.closeLists(-1)
	return template.HTML(r.b.String())
}

// list is one open list: its marker's indentation, and whether it is
// ordered.
type list struct {
	indent  int
	ordered bool
}

type renderer struct {
	b     strings.Builder
	para  bool   // a <p> is open
	lists []list // open lists, innermost last; each has an open <li>
	blank bool   // the line before was blank
}

func (r *renderer) line(raw string) {
	indent, rest := indentOf(raw)
	if strings.TrimSpace(rest) == "" {
		r.closeParagraph()
		r.blank = true
		return
	}
	blank := r.blank
	r.blank = false
	if level, title, ok := heading(rest, indent); ok {
		r.closeParagraph()
		r.closeLists(-1)
		n := strconv.Itoa(min(level+1, 6))
		r.b.WriteString("<h" + n + ">")
		r.b.WriteString(inline(title))
		r.b.WriteString("</h" + n + ">\n")
		return
	}
	if ordered, number, item, ok := listItem(rest); ok {
		r.closeParagraph()
		r.item(indent, ordered, number, item)
		return
	}
	if len(r.lists) > 0 {
		if !blank && indent > r.lists[len(r.lists)-1].indent {
			// An indented line under an item continues it.
			r.b.WriteString("<br>\n")
			r.b.WriteString(inline(strings.TrimSpace(rest)))
			return
		}
		r.closeLists(-1)
	}
	if r.para {
		r.b.WriteString("<br>\n")
	} else {
		r.b.WriteString("<p>")
		r.para = true
	}
	r.b.WriteString(inline(strings.TrimSpace(rest)))
}

// item opens a list item at indent, nesting or closing lists as the
// indentation says.
func (r *renderer) item(indent int, ordered bool, number, text string) {
	r.closeLists(indent)
	top := len(r.lists) - 1
	switch {
	case top >= 0 && r.lists[top].indent == indent && r.lists[top].ordered == ordered:
		r.b.WriteString("</li>\n")
	case top >= 0 && r.lists[top].indent == indent:
		// The other kind of list at the same depth: a new list.
		r.closeList()
		fallthrough
	default:
		if len(r.lists) > 0 {
			r.b.WriteString("\n")
		}
		if ordered {
			r.b.WriteString("<ol>\n")
		} else {
			r.b.WriteString("<ul>\n")
		}
		r.lists = append(r.lists, list{indent: indent, ordered: ordered})
	}
	if ordered {
		r.b.WriteString(`<li value="` + number + `">`)
	} else {
		r.b.WriteString("<li>")
	}
	r.b.WriteString(inline(text))
}

// closeLists closes the lists deeper than indent (all for -1).
func (r *renderer) closeLists(indent int) {
	for len(r.lists) > 0 && (indent < 0 || r.lists[len(r.lists)-1].indent > indent) {
		r.closeList()
	}
}

func (r *renderer) closeList() {
	l := r.lists[len(r.lists)-1]
	r.lists = r.lists[:len(r.lists)-1]
	if l.ordered {
		r.b.WriteString("</li>\n</ol>")
	} else {
		r.b.WriteString("</li>\n</ul>")
	}
	if len(r.lists) == 0 {
		r.b.WriteString("\n")
	}
}

func (r *renderer) closeParagraph() {
	if r.para {
		r.b.WriteString("</p>\n")
		r.para = false
	}
}

// indentOf is a line's indentation in columns (a tab is 4) and the rest.
func indentOf(s string) (int, string) {
	n := 0
	for i, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n, s[i:]
		}
	}
	return n, ""
}

// heading reads "# Title" (one to six #, then a space or the end; at most
// three spaces before), without closing #s.
func heading(s string, indent int) (level int, title string, ok bool) {
	if indent > 3 {
		return 0, "", false
	}
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, "", false
	}
	title = strings.TrimSpace(s[level:])
	if t := strings.TrimRight(title, "#"); t == "" || strings.HasSuffix(t, " ") {
		title = strings.TrimSpace(t)
	}
	if title == "" {
		return 0, "", false
	}
	return level, title, true
}

// listItem reads "- item", "* item", "+ item", "12. item" or "12) item".
// A line that merely starts with a number ("2024 begon", "1.5 miljoen",
// "2.1. De rechtbank") is not one.
func listItem(s string) (ordered bool, number, text string, ok bool) {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
		if t := strings.TrimSpace(s[2:]); t != "" {
			return false, "", t, true
		}
		return false, "", "", false
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(s) || (s[i] != '.' && s[i] != ')') || (s[i+1] != ' ' && s[i+1] != '\t') {
		return false, "", "", false
	}
	t := strings.TrimSpace(s[i+2:])
	if t == "" {
		return false, "", "", false
	}
	n, _ := strconv.Atoi(s[:i])
	return true, strconv.Itoa(n), t, true
}

// piece is a part of a line: text (s[start:end], escaped when written),
// or a delimiter run of * or _, one or two long, that may become a tag.
type piece struct {
	start, end int
	delim      byte // '*' or '_'; 0 for text
	n          int  // the delimiter's length: 1 (em) or 2 (strong)
	tag        byte // 'o' opens, 'c' closes the element; 0: as written
}

// kindOf indexes the open count of a delimiter: * or _, em or strong.
func kindOf(p piece) int {
	k := p.n - 1
	if p.delim == '_' {
		k += 2
	}
	return k
}

// inline renders a line's emphasis, escaping everything else.
func inline(s string) string {
	marks := strings.Count(s, "*") + strings.Count(s, "_")
	if marks == 0 && !strings.Contains(s, "\\") {
		return html.EscapeString(s)
	}
	// At most a text and a delimiter per mark, and the text after them.
	ps := make([]piece, 0, 2*marks+1)
	textFrom := 0 // where the text not yet in ps starts
	flush := func(end int) {
		if end > textFrom {
			ps = append(ps, piece{start: textFrom, end: end})
		}
	}
	// stack holds the indexes in ps of delimiters that may still open;
	// open counts them per kind, so a closer without an opener of its kind
	// never searches the stack, and every delimiter is pushed and popped
	// at most once.
	stack := make([]int, 0, marks)
	var open [4]int
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			flush(i)
			textFrom = i + 1 // the mark itself, as text
			i += 2
			continue
		}
		if c != '*' && c != '_' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == c {
			j++
		}
		run := j - i
		before, after := ' ', ' '
		if i > 0 {
			before, _ = utf8.DecodeLastRuneInString(s[:i])
		}
		if j < len(s) {
			after, _ = utf8.DecodeRuneInString(s[j:])
		}
		canOpen := !unicode.IsSpace(after)
		canClose := !unicode.IsSpace(before)
		if c == '_' {
			// No emphasis inside a word: snake_case stays as written.
			canOpen = canOpen && !isWordRune(before)
			canClose = canClose && !isWordRune(after)
		}
		if run > 3 || (!canOpen && !canClose) {
			i = j
			continue
		}
		flush(i)
		textFrom = j
		// A run of three is em and strong: em opens outside, strong
		// closes inside first.
		first, second := run, 0
		if run == 3 {
			first, second = 1, 2
			if canClose && open[kindOf(piece{delim: c, n: 2})] > 0 {
				first, second = 2, 1
			}
		}
		at := i
		for _, n := range [2]int{first, second} {
			if n == 0 {
				continue
			}
			p := piece{start: at, end: at + n, delim: c, n: n}
			at += n
			k := kindOf(p)
			if canClose && open[k] > 0 {
				// Close the nearest opener of its kind; the delimiters
				// above it stay as written.
				for {
					top := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					open[kindOf(ps[top])]--
					if kindOf(ps[top]) == k {
						ps[top].tag, p.tag = 'o', 'c'
						break
					}
				}
				ps = append(ps, p)
				continue
			}
			ps = append(ps, p)
			if canOpen {
				stack = append(stack, len(ps)-1)
				open[k]++
			}
		}
		i = j
	}
	flush(len(s))
	var out strings.Builder
	out.Grow(len(s) + len(s)/8)
	for _, p := range ps {
		name := "em>"
		if p.n == 2 {
			name = "strong>"
		}
		switch p.tag {
		case 'o':
			out.WriteString("<" + name)
		case 'c':
			out.WriteString("</" + name)
		default:
			out.WriteString(html.EscapeString(s[p.start:p.end]))
		}
	}
	return out.String()
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
