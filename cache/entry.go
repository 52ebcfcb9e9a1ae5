package cache

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/http"
	"time"
)

// Entry is one stored answer of a platform.
type Entry struct {
	// Version is the BesluitBron version that wrote the entry.
	Version string
	// Kind is the request kind the entry was stored under (list, search,
	// document, other); it decides the stale windows when read.
	Kind string
	// StoredAt is when the answer arrived; Age counts from it.
	StoredAt time.Time
	// Expires is the end of the entry's fresh lifetime.
	Expires time.Time
	// KeepUntil is the end of the last stale window the entry may serve
	// in; after it the entry is removed.
	KeepUntil time.Time
	// Status is the upstream status code (2xx, or 404 with a negative TTL).
	Status int
	// Header holds the answer's end-to-end headers (see storedHeader).
	Header http.Header
	// Body is the complete body.
	Body []byte
}

// The entry's binary layout (little endian):
//
//	magic "BBE1" | storedAt, expires, keepUntil int64 (unix ns) | status uint16 |
//	kind, version: uint8 length + bytes | header count uint16, then per value
//	name uint16 length + bytes, value uint32 length + bytes | body uint32
//	length + bytes | crc32 (Castagnoli) of everything before it
var magic = [4]byte{'B', 'B', 'E', '1'}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errDamaged is returned for bytes that are not a whole, intact entry.
var errDamaged = errors.New("damaged cache entry")

// encode returns the entry's bytes.
func (e *Entry) encode() []byte {
	n := 4 + 24 + 2 + 1 + len(e.Kind) + 1 + len(e.Version) + 2 + 4 + len(e.Body) + 4
	values := 0
	for k, vs := range e.Header {
		for _, v := range vs {
			n += 2 + len(k) + 4 + len(v)
			values++
		}
	}
	b := make([]byte, 0, n)
	b = append(b, magic[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(e.StoredAt.UnixNano()))
	b = binary.LittleEndian.AppendUint64(b, uint64(e.Expires.UnixNano()))
	b = binary.LittleEndian.AppendUint64(b, uint64(e.KeepUntil.UnixNano()))
	b = binary.LittleEndian.AppendUint16(b, uint16(e.Status))
	b = append(b, byte(len(e.Kind)))
	b = append(b, e.Kind...)
	b = append(b, byte(len(e.Version)))
	b = append(b, e.Version...)
	b = binary.LittleEndian.AppendUint16(b, uint16(values))
	for k, vs := range e.Header {
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint16(b, uint16(len(k)))
			b = append(b, k...)
			b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
			b = append(b, v...)
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(e.Body)))
	b = append(b, e.Body...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
	return b
}

// fits tells whether the entry can be encoded: short kind and version,
// header names and counts within their length fields.
func (e *Entry) fits() bool {
	if len(e.Kind) > 255 || len(e.Version) > 255 || len(e.Body) > 1<<31 {
		return false
	}
	values := 0
	for k, vs := range e.Header {
		if len(k) > 65535 {
			return false
		}
		values += len(vs)
	}
	return values <= 65535
}

// decodeEntry reads an entry. The body aliases b (no copy); checkCRC
// verifies the trailer (done for bytes read from disk).
func decodeEntry(b []byte, checkCRC bool) (*Entry, error) {
	if len(b) < 4+24+2+1+1+2+4+4 || [4]byte(b[:4]) != magic {
		return nil, errDamaged
	}
	if checkCRC {
		n := len(b) - 4
		if crc32.Checksum(b[:n], crcTable) != binary.LittleEndian.Uint32(b[n:]) {
			return nil, errDamaged
		}
	}
	d := decoder{b: b[:len(b)-4], off: 4}
	e := &Entry{}
	e.StoredAt = time.Unix(0, int64(d.u64()))
	e.Expires = time.Unix(0, int64(d.u64()))
	e.KeepUntil = time.Unix(0, int64(d.u64()))
	e.Status = int(d.u16())
	e.Kind = string(d.bytes(int(d.u8())))
	e.Version = string(d.bytes(int(d.u8())))
	nh := int(d.u16())
	if nh > 0 {
		e.Header = make(http.Header, nh)
	} else {
		e.Header = http.Header{}
	}
	for i := 0; i < nh && d.err == nil; i++ {
		k := string(d.bytes(int(d.u16())))
		v := string(d.bytes(int(d.u32())))
		e.Header[k] = append(e.Header[k], v)
	}
	e.Body = d.bytes(int(d.u32()))
	if d.err != nil || d.off != len(d.b) {
		return nil, errDamaged
	}
	return e, nil
}

// peekVersion returns the version an encoded entry names, without decoding
// the rest.
func peekVersion(b []byte) (string, bool) {
	d := decoder{b: b, off: 4 + 24 + 2}
	d.bytes(int(d.u8()))
	v := d.bytes(int(d.u8()))
	return string(v), d.err == nil
}

type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || d.off+n > len(d.b) {
		d.err = errDamaged
		return nil
	}
	s := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return s
}

func (d *decoder) u8() uint8 {
	if s := d.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if s := d.take(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if s := d.take(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if s := d.take(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

func (d *decoder) bytes(n int) []byte { return d.take(n) }
