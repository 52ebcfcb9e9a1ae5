package caselaw

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Paging the date order by cursor.
//
// The date order is a total order: newest day first, then ECLI (search.go).
// A page's cursor (Result.Next) is the place of its last hit in that order,
// its day and ECLI; the next page is the hits after that place. So a deep
// page costs what the first page costs: the windows newer than the cursor's
// day are not read at all, and the window that holds it starts at that day
// (bleve's search_after skips the rest of the day). And the place does not
// move when the index changes: decisions stored or withdrawn between two
// pages never make the next page repeat or skip one that was there before,
// as they shift an offset.
//
// The token is opaque to callers: a version, a fingerprint of the query it
// belongs to, the day, the ECLI and a checksum of all that, in unpadded
// base64url. A token that does not decode to exactly that (garbled,
// truncated, edited), or belongs to another query, is a *QueryError of
// field "after", never a panic or a silent first page. The checksum is not
// a secret: a token made by hand is accepted, and is only a place in the
// order, as a date filter is; a key would have to be shared by every
// instance and kept across restarts, for no gain.

const cursorVersion = 1

// cursorFingerprintLen is the bytes of the query's hash a cursor carries:
// enough that another query's cursor is refused, not a secret.
const cursorFingerprintLen = 6

// cursorChecksumLen is the bytes of the checksum that ends a cursor.
const cursorChecksumLen = 4

// maxCursorLen bounds the token before it is decoded: its version,
// fingerprint, day, longest ECLI and checksum in base64.
var maxCursorLen = base64.RawURLEncoding.EncodedLen(1 + cursorFingerprintLen + len(dateLayout) + maxECLILength + cursorChecksumLen)

// place is a position in the date order: the hits after it follow.
type place struct {
	day  string // YYYY-MM-DD
	date time.Time
	ecli string
}

// queryFingerprint names the question a cursor belongs to: the words and
// filters, normalized as planQuery reads them (not the page size).
func queryFingerprint(q Query) []byte {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	h := sha256.New()
	for _, part := range []string{norm(q.Words), norm(q.Court), strings.TrimSpace(q.DateFrom), strings.TrimSpace(q.DateTo), norm(q.Type)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return h.Sum(nil)[:cursorFingerprintLen]
}

// encodeCursor is the token of the place after the hit of day and ecli.
func encodeCursor(fingerprint []byte, day, ecli string) string {
	b := make([]byte, 0, 1+len(fingerprint)+len(day)+len(ecli))
	b = append(b, cursorVersion)
	b = append(b, fingerprint...)
	b = append(b, day...)
	b = append(b, ecli...)
	b = append(b, cursorChecksum(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func cursorChecksum(payload []byte) []byte {
	sum := sha256.Sum256(payload)
	return sum[:cursorChecksumLen]
}

// decodeCursor reads a token of q.
func decodeCursor(token string, q Query) (place, error) {
	garbled := queryErrorf("after", "%.24q… is not a cursor of this index: pass a page's next exactly as it came, or leave after out to start at the first page", token)
	if len(token) > maxCursorLen {
		return place{}, garbled
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) < 1+cursorFingerprintLen+len(dateLayout)+1+cursorChecksumLen {
		return place{}, garbled
	}
	b, sum := b[:len(b)-cursorChecksumLen], b[len(b)-cursorChecksumLen:]
	if !bytes.Equal(sum, cursorChecksum(b)) {
		return place{}, garbled
	}
	if b[0] != cursorVersion {
		return place{}, queryErrorf("after", "the cursor was made by another version of the index; start again at the first page")
	}
	b = b[1:]
	if !bytes.Equal(b[:cursorFingerprintLen], queryFingerprint(q)) {
		return place{}, queryErrorf("after", "the cursor belongs to another question (other words, court, dates or type); ask this question's first page without after, or repeat the question the cursor came with")
	}
	b = b[cursorFingerprintLen:]
	p := place{day: string(b[:len(dateLayout)]), ecli: string(b[len(dateLayout):])}
	if p.date, err = parseDate(p.day); err != nil {
		return place{}, garbled
	}
	if !utf8.ValidString(p.ecli) || len(p.ecli) > maxECLILength || strings.IndexFunc(p.ecli, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) >= 0 {
		return place{}, garbled
	}
	return p, nil
}
