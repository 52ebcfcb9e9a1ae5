package corpus

import (
	"bytes"
	"fmt"
	"strings"
)

// PDF writes a small valid PDF: the lines as Helvetica text, 54 to a
// page, an optional document title, and pad bytes of comment after the
// header (so an emulator can hit an exact ContentLength).
func PDF(lines []string, title string, pad int) []byte {
	const perPage = 54
	var pages [][]string
	for len(lines) > 0 {
		n := min(perPage, len(lines))
		pages = append(pages, lines[:n])
		lines = lines[n:]
	}
	if len(pages) == 0 {
		pages = [][]string{{""}}
	}
	var buf bytes.Buffer
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	if pad > 0 {
		buf.WriteString("%")
		buf.WriteString(strings.Repeat("0", max(pad-2, 0)))
		buf.WriteString("\n")
	}
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, buf.Len())
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	// 1 catalog, 2 pages, 3 font, then page/content pairs
	kids := make([]string, len(pages))
	for p := range pages {
		kids[p] = fmt.Sprintf("%d 0 R", 4+2*p)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for p, pl := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*p))
		var c strings.Builder
		c.WriteString("BT /F1 10 Tf 14 TL 50 792 Td\n")
		for _, l := range pl {
			fmt.Fprintf(&c, "(%s) Tj T*\n", pdfString(l))
		}
		c.WriteString("ET")
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	info := ""
	if title != "" {
		info = fmt.Sprintf(" /Info << /Title (%s) >>", pdfString(title))
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, info, xref)
	return buf.Bytes()
}

// pdfString escapes s for a PDF literal string in WinAnsiEncoding.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x80:
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}
