package adapters

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
)

// XMLText returns the character data of the XML document in b, starting at
// the first element whose local name is in roots (or the whole document if
// roots is empty), with a line break after each element whose local name is
// in blocks. It tolerates a byte order mark, CRLF line ends, processing
// instructions and unknown namespaces.
func XMLText(b []byte, roots []string, blocks map[string]bool) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(TrimBOM(b)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var sb strings.Builder
	depth := 0 // >0 while inside a root
	rootSet := map[string]bool{}
	for _, r := range roots {
		rootSet[r] = true
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth > 0 || len(roots) == 0 || rootSet[t.Name.Local] {
				depth++
			}
		case xml.EndElement:
			if depth > 0 {
				depth--
				if blocks[t.Name.Local] {
					sb.WriteString("\n")
				}
			}
		case xml.CharData:
			if depth > 0 || len(roots) == 0 {
				sb.Write(t)
			}
		}
	}
	return tidyLines(sb.String()), nil
}

// tidyLines collapses spaces inside lines and drops empty lines.
func tidyLines(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if l := Squash(line); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
