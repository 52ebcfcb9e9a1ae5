package tk

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/caddymodule/emulators/corpus"
)

// DocumentText returns the full text of document i: its title, subject and
// tens of KB of paragraphs, sized to the document's ContentLength.
func (d *Data) DocumentText(i int) string {
	head, rnd := d.documentHead(i)
	cl := d.sets["Document"].rows[i][17].(int)
	n := max(cl*6/10/700, 4)
	return head + corpus.Paragraphs(rnd, n) + "\n"
}

// DocumentHead returns the start of DocumentText(i): title, subject,
// number and a first paragraph naming the topic. Search indexes (OpenTK)
// cover this part, which every full text begins with.
func (d *Data) DocumentHead(i int) string {
	head, _ := d.documentHead(i)
	return head
}

func (d *Data) documentHead(i int) (string, *rand.Rand) {
	d.build()
	r := d.sets["Document"].rows[i]
	rnd := corpus.Rand(d.seed, "tk-doc-text", i)
	var b strings.Builder
	fmt.Fprintf(&b, "Tweede Kamer der Staten-Generaal\n\n%s\n\n%s\n\nNr. %s\n\n", r[3], r[4], r[2])
	fmt.Fprintf(&b, "Dit stuk gaat over %s. %s %s\n\n", d.docs[i].Topic, corpus.Sentence(rnd), corpus.Sentence(rnd))
	return b.String(), rnd
}

// DocumentPDF returns document i as a PDF of exactly ContentLength bytes.
func (d *Data) DocumentPDF(i int) []byte {
	d.build()
	cl := d.sets["Document"].rows[i][17].(int)
	return makePDF(d.DocumentText(i), cl)
}

// makePDF writes a valid PDF holding text, padded with a comment to size
// bytes (text is cut when it does not fit).
func makePDF(text string, size int) []byte {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		for len(para) > 90 {
			cut := strings.LastIndexByte(para[:90], ' ')
			if cut <= 0 {
				cut = 90
			}
			lines = append(lines, para[:cut])
			para = strings.TrimLeft(para[cut:], " ")
		}
		lines = append(lines, para)
	}
	for {
		out := buildPDF(lines, 0)
		if len(out) <= size || len(lines) <= 1 {
			pad := size - len(out)
			for k := 0; k < 4 && pad > 0; k++ {
				out = buildPDF(lines, pad)
				if len(out) == size {
					return out
				}
				pad += size - len(out)
			}
			return out
		}
		lines = lines[:len(lines)*9/10]
	}
}

func pdfLatin1(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 128:
			b.WriteRune(r)
		case r < 256:
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

func buildPDF(lines []string, pad int) []byte {
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
			fmt.Fprintf(&c, "(%s) Tj T*\n", pdfLatin1(l))
		}
		c.WriteString("ET")
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return buf.Bytes()
}

// imageBytes returns a small image of the given type, padded to size bytes
// (decoders ignore the trailing bytes).
func imageBytes(contentType string, seed int64, id string, size int) []byte {
	r := corpus.Rand(seed, "tk-image", id)
	img := image.NewRGBA(image.Rect(0, 0, 40, 50))
	c := color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
	for y := 0; y < 50; y++ {
		for x := 0; x < 40; x++ {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	switch contentType {
	case "image/png":
		png.Encode(&buf, img)
	case "image/gif":
		gif.Encode(&buf, img, nil)
	default:
		jpeg.Encode(&buf, img, nil)
	}
	if buf.Len() < size {
		buf.Write(make([]byte, size-buf.Len()))
	}
	return buf.Bytes()
}

// resourceBytes returns the file of row i of s, or ok=false when it has none.
func (h *handler) resourceBytes(s *set, i int) (body []byte, contentType string, ok bool) {
	if !s.hasResource {
		return nil, "", false
	}
	ct, _ := s.get(i, "ContentType").(string)
	cl, _ := s.get(i, "ContentLength").(int)
	if ct == "" {
		return nil, "", false
	}
	if s.typ == tDocument {
		return h.data.DocumentPDF(i), ct, true
	}
	return imageBytes(ct, h.data.seed, s.rows[i][0].(string), cl), ct, true
}

func (h *handler) serveResource(w http.ResponseWriter, r *http.Request, s *set, i int) {
	body, ct, ok := h.resourceBytes(s, i)
	if !ok {
		odataError(w, http.StatusNotFound, "No resource found for this entity.")
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}
