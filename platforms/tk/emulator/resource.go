package emulator

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

	"github.com/besluitbron/besluitbron/emulators/corpus"
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
		out := corpus.PDF(lines, "", 0)
		if len(out) <= size || len(lines) <= 1 {
			pad := size - len(out)
			for k := 0; k < 4 && pad > 0; k++ {
				out = corpus.PDF(lines, "", pad)
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
