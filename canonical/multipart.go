package canonical

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"mime"
	"mime/multipart"
	"net/textproto"
	"sort"
)

// formField is one part of a multipart form, as re-encoded.
type formField struct {
	name, filename, contentType string
	content                     []byte
}

// reencodeMultipart returns a multipart/form-data body in canonical form:
// its fields in name order (repeated names in their own order), each with
// only a Content-Disposition (name, and filename for a file) and, when
// the client gave one, a Content-Type, under a boundary derived from the
// fields. The client's boundary, preamble, epilogue and field order are
// gone, so they neither split the cache nor reach the platform.
//
// Every byte of a field's value is passed on as the client sent it, and
// the key hashes exactly those bytes. A part that would be read as
// something other than its bytes is refused: a Content-Transfer-Encoding
// (net/http's reader decodes quoted-printable, a platform's may not, so
// "=6Blimaat" would key as "klimaat"), an RFC 2231 name* or filename*, or
// any other part header.
func reencodeMultipart(boundary string, body []byte) (string, []byte, error) {
	if boundary == "" {
		return "", nil, badBody("multipart/form-data without a boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var fields []formField
	for {
		// NextRawPart: NextPart would decode quoted-printable and hide
		// the header that says so.
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, badBody("reading the multipart form: %v", err)
		}
		f, err := readField(p)
		if err != nil {
			return "", nil, err
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return "", nil, badBody("the multipart form has no fields")
	}
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].name < fields[j].name })

	h := sha256.New()
	for _, f := range fields {
		for _, s := range [][]byte{[]byte(f.name), []byte(f.filename), []byte(f.contentType), f.content} {
			_ = binary.Write(h, binary.BigEndian, uint64(len(s)))
			_, _ = h.Write(s)
		}
	}
	ours := "besluitbron-" + hex.EncodeToString(h.Sum(nil)[:16])
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.SetBoundary(ours) // 44 characters of [a-z0-9-]: valid
	for _, f := range fields {
		if bytes.Contains(f.content, []byte(ours)) {
			// Needs a value holding a hash of itself: never by chance.
			return "", nil, badBody("field %q holds the form's canonical boundary", f.name)
		}
		hdr := textproto.MIMEHeader{}
		cd := `form-data; name="` + f.name + `"`
		if f.filename != "" {
			cd += `; filename="` + f.filename + `"`
		}
		hdr.Set("Content-Disposition", cd)
		if f.contentType != "" {
			hdr.Set("Content-Type", f.contentType)
		}
		w, err := mw.CreatePart(hdr)
		if err != nil {
			return "", nil, badBody("writing field %q: %v", f.name, err)
		}
		_, _ = w.Write(f.content)
	}
	_ = mw.Close()
	return mw.FormDataContentType(), buf.Bytes(), nil
}

// readField reads one raw part, refusing what the re-encoding could not
// pass on as the client meant it.
func readField(p *multipart.Part) (formField, error) {
	var f formField
	var cd string
	for k, vs := range p.Header {
		if len(vs) != 1 {
			return f, badBody("a form part has %d %s headers: send one", len(vs), k)
		}
		switch k {
		case "Content-Disposition":
			cd = vs[0]
		case "Content-Type":
			mt, params, err := mime.ParseMediaType(vs[0])
			if err != nil {
				return f, badBody("a form part's Content-Type %q: %v", vs[0], err)
			}
			if f.contentType = mime.FormatMediaType(mt, params); f.contentType == "" {
				return f, badBody("a form part's Content-Type %q cannot be written back canonically", vs[0])
			}
		case "Content-Transfer-Encoding":
			return f, badBody("a form part has Content-Transfer-Encoding %q: send its value as plain bytes (RFC 7578 §4.7)", vs[0])
		default:
			return f, badBody("a form part has a %s header: only Content-Disposition and Content-Type are passed on", k)
		}
	}
	if cd == "" {
		return f, badBody("a form part has no Content-Disposition")
	}
	if starParam(cd) {
		return f, badBody("a form part's Content-Disposition %q has an extended (name*) parameter: send the name quoted, as name=\"...\"", cd)
	}
	disp, params, err := mime.ParseMediaType(cd)
	if err != nil || disp != "form-data" {
		return f, badBody("a form part's Content-Disposition %q is not form-data; name=\"...\"", cd)
	}
	for k, v := range params {
		switch k {
		case "name":
			f.name = v
		case "filename":
			f.filename = v
		default:
			return f, badBody("a form part's Content-Disposition has a %s parameter: only name and filename are passed on", k)
		}
		if !plainQuotable(v) {
			return f, badBody("a form part's %s %q holds a quote, backslash or control character", k, v)
		}
	}
	if f.name == "" {
		return f, badBody("a form part has no name")
	}
	if f.content, err = io.ReadAll(p); err != nil {
		return f, badBody("reading form field %q: %v", f.name, err)
	}
	return f, nil
}

// starParam tells whether a header value has a '*' outside its quoted
// strings: an RFC 2231 parameter (name*=, name*0=), which mime decodes
// into the plain name, hiding that the client wrote it otherwise.
func starParam(v string) bool {
	quoted, escaped := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case !quoted && c == '*':
			return true
		}
	}
	return false
}

// plainQuotable tells whether s can be written between double quotes
// as it is, read back alike by every form parser.
func plainQuotable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
