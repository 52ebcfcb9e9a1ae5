// Package fault wraps an emulator's http.Handler so tests can count the
// requests it receives and make it misbehave on request: added latency, an
// error status, a connection reset (before the answer or part-way through
// its body), a slow body and an answer padded past any size cap.
//
// The same controls exist as a Go API (AddFault, ClearFaults, Reset, Stats)
// and over HTTP under /_emulator/:
//
//	GET    /_emulator/stats        counts as JSON (Stats)
//	GET    /_emulator/faults       the active faults
//	POST   /_emulator/faults       add a fault (JSON Fault); 201 {"id": n}
//	DELETE /_emulator/faults[?id=n] remove one fault, or all of them
//	POST   /_emulator/reset        zero the counts and remove every fault
//
// Requests under /_emulator/ are neither counted nor faulted.
package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/clock"
)

// ControlPrefix is the path prefix of the control endpoints.
const ControlPrefix = "/_emulator/"

// maxPaths bounds the per-path counters; further distinct paths are counted
// under OtherPaths.
const maxPaths = 10000

// OtherPaths is the ByPath key that collects paths beyond the first 10000.
const OtherPaths = "(other)"

// Duration is a time.Duration that reads and writes JSON as a Go duration
// string ("250ms", "2s"); a bare JSON number is read as milliseconds.
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads "250ms" or 250 (milliseconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("latency: %v", err)
		}
		*d = Duration(v)
		return nil
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("latency: want a duration string such as \"250ms\" or a number of milliseconds")
	}
	*d = Duration(ms * float64(time.Millisecond))
	return nil
}

// Fault describes misbehaviour for the requests it matches. One fault can
// combine latency with one of Status, Reset, BytesPerSecond or PadBytes.
type Fault struct {
	// ID is assigned by AddFault.
	ID int `json:"id,omitempty"`
	// PathPrefix limits the fault to request paths with this prefix
	// ("" = every path).
	PathPrefix string `json:"path_prefix,omitempty"`
	// Count limits the fault to the next Count matching requests
	// (0 = until removed). Remaining shows what is left.
	Count     int `json:"count,omitempty"`
	Remaining int `json:"remaining,omitempty"`
	// Latency is waited before anything else happens.
	Latency Duration `json:"latency,omitempty"`
	// Status answers with this status (400-599) instead of the emulator;
	// Body is its body (default: a JSON error naming the fault).
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	// Reset closes the connection with a TCP RST (SO_LINGER 0). With
	// ResetAfterBytes 0 nothing is answered; otherwise the emulator's answer
	// is sent with its full Content-Length, but the connection is reset
	// after that many body bytes.
	Reset           bool `json:"reset,omitempty"`
	ResetAfterBytes int  `json:"reset_after_bytes,omitempty"`
	// BytesPerSecond sends the emulator's answer body at this rate.
	BytesPerSecond int `json:"bytes_per_second,omitempty"`
	// PadBytes sends the emulator's answer followed by this many spaces,
	// with the total as Content-Length: an answer of any size (JSON and
	// XML stay well-formed, so only the size is wrong), for the limits on
	// what BesluitBron holds of one answer. At most MaxPadBytes.
	PadBytes int `json:"pad_bytes,omitempty"`
}

// MaxPadBytes bounds PadBytes: well past BesluitBron's largest cap on one
// answer (32 MiB), yet quick to send over loopback.
const MaxPadBytes = 1 << 30

// Validate reports a fault that makes no sense.
func (f Fault) Validate() error {
	switch {
	case f.Count < 0:
		return errors.New("count must be 0 (until removed) or more")
	case f.Latency < 0 || time.Duration(f.Latency) > 10*time.Minute:
		return errors.New("latency must be between 0 and 10m")
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("status %d: must be between 400 and 599", f.Status)
	case f.Body != "" && f.Status == 0:
		return errors.New("body needs a status")
	case f.ResetAfterBytes < 0:
		return errors.New("reset_after_bytes must be 0 or more")
	case f.ResetAfterBytes > 0 && !f.Reset:
		return errors.New("reset_after_bytes needs reset: true")
	case f.BytesPerSecond < 0:
		return errors.New("bytes_per_second must be 0 or more")
	case f.PadBytes < 0 || f.PadBytes > MaxPadBytes:
		return fmt.Errorf("pad_bytes must be between 0 and %d", MaxPadBytes)
	case f.PathPrefix != "" && !strings.HasPrefix(f.PathPrefix, "/"):
		return fmt.Errorf("path_prefix %q must start with /", f.PathPrefix)
	}
	n := 0
	if f.Status != 0 {
		n++
	}
	if f.Reset {
		n++
	}
	if f.BytesPerSecond != 0 {
		n++
	}
	if f.PadBytes != 0 {
		n++
	}
	if n > 1 {
		return errors.New("choose one of status, reset, bytes_per_second and pad_bytes")
	}
	if n == 0 && f.Latency == 0 {
		return errors.New("the fault does nothing: set latency, status, reset, bytes_per_second or pad_bytes")
	}
	return nil
}

// Stats are the counts of an Instrumented handler since it was made or
// last reset.
type Stats struct {
	// Total is the number of requests received (control requests excluded).
	Total int64 `json:"total"`
	// ByPath counts requests by URL path.
	ByPath map[string]int64 `json:"by_path"`
	// ByStatus counts answers by status code ("200", "429"); a reset
	// connection counts under "reset".
	ByStatus map[string]int64 `json:"by_status"`
	// FaultsInjected counts requests a fault was applied to.
	FaultsInjected int64 `json:"faults_injected"`
	// InFlight is the number of requests being answered now, MaxInFlight
	// the highest it has been.
	InFlight    int64 `json:"in_flight"`
	MaxInFlight int64 `json:"max_in_flight"`
	// Emulator holds the wrapped handler's own figures, if it has any
	// (see Reporter).
	Emulator map[string]any `json:"emulator,omitempty"`
}

// Reporter is implemented by a wrapped handler that has figures of its own
// (OBV's rate-limit rejections, for example). They appear in Stats.Emulator.
type Reporter interface {
	EmulatorStats() map[string]any
}

// Resetter is implemented by a wrapped handler with state that
// /_emulator/reset should clear as well (a rate-limit bucket, for example).
type Resetter interface {
	ResetEmulator()
}

// Sleeper waits d or until ctx ends. Tests inject one that returns at once.
type Sleeper func(ctx context.Context, d time.Duration) error

// RealSleep waits d on the wall clock (clock.Sleep); no wait at all for
// a d of zero or less.
func RealSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	return clock.Sleep(ctx, clock.Wall{}, d)
}

// Option configures Wrap.
type Option func(*Instrumented)

// WithSleeper replaces the real sleep used for latency and slow bodies.
func WithSleeper(s Sleeper) Option { return func(i *Instrumented) { i.sleep = s } }

// Instrumented counts and faults the requests of a wrapped handler.
type Instrumented struct {
	next  http.Handler
	sleep Sleeper

	mu          sync.Mutex
	total       int64
	byPath      map[string]int64
	byStatus    map[string]int64
	injected    int64
	inFlight    int64
	maxInFlight int64
	faults      []*Fault
	nextID      int
}

// Wrap returns h wrapped with counters and fault injection.
func Wrap(h http.Handler, opts ...Option) *Instrumented {
	i := &Instrumented{next: h, sleep: RealSleep, byPath: map[string]int64{}, byStatus: map[string]int64{}}
	for _, o := range opts {
		o(i)
	}
	return i
}

// Unwrap returns the wrapped handler.
func (i *Instrumented) Unwrap() http.Handler { return i.next }

// AddFault activates f and returns its id.
func (i *Instrumented) AddFault(f Fault) (int, error) {
	if err := f.Validate(); err != nil {
		return 0, err
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.nextID++
	f.ID = i.nextID
	f.Remaining = f.Count
	i.faults = append(i.faults, &f)
	return f.ID, nil
}

// RemoveFault removes the fault with the given id; it reports whether there
// was one.
func (i *Instrumented) RemoveFault(id int) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	for k, f := range i.faults {
		if f.ID == id {
			i.faults = append(i.faults[:k], i.faults[k+1:]...)
			return true
		}
	}
	return false
}

// ClearFaults removes every fault.
func (i *Instrumented) ClearFaults() {
	i.mu.Lock()
	i.faults = nil
	i.mu.Unlock()
}

// Faults returns the active faults, oldest first.
func (i *Instrumented) Faults() []Fault {
	i.mu.Lock()
	defer i.mu.Unlock()
	out := make([]Fault, len(i.faults))
	for k, f := range i.faults {
		out[k] = *f
	}
	return out
}

// Reset zeroes the counts, removes every fault and resets the wrapped
// handler's own state if it is a Resetter.
func (i *Instrumented) Reset() {
	i.mu.Lock()
	i.total, i.injected, i.maxInFlight = 0, 0, i.inFlight
	i.byPath = map[string]int64{}
	i.byStatus = map[string]int64{}
	i.faults = nil
	i.mu.Unlock()
	if r, ok := i.next.(Resetter); ok {
		r.ResetEmulator()
	}
}

// Stats returns a copy of the counts.
func (i *Instrumented) Stats() Stats {
	i.mu.Lock()
	s := Stats{Total: i.total, FaultsInjected: i.injected, InFlight: i.inFlight, MaxInFlight: i.maxInFlight,
		ByPath: make(map[string]int64, len(i.byPath)), ByStatus: make(map[string]int64, len(i.byStatus))}
	for k, v := range i.byPath {
		s.ByPath[k] = v
	}
	for k, v := range i.byStatus {
		s.ByStatus[k] = v
	}
	i.mu.Unlock()
	if r, ok := i.next.(Reporter); ok {
		s.Emulator = r.EmulatorStats()
	}
	return s
}

// Count returns how many requests with exactly this path were received.
func (i *Instrumented) Count(path string) int64 {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.byPath[path]
}

// Total returns how many requests were received.
func (i *Instrumented) Total() int64 {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.total
}

// StatusCount returns how many answers had this status.
func (i *Instrumented) StatusCount(status int) int64 {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.byStatus[strconv.Itoa(status)]
}

// begin counts a request and picks the fault that applies to it.
func (i *Instrumented) begin(path string) *Fault {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.total++
	if _, ok := i.byPath[path]; ok || len(i.byPath) < maxPaths {
		i.byPath[path]++
	} else {
		i.byPath[OtherPaths]++
	}
	i.inFlight++
	if i.inFlight > i.maxInFlight {
		i.maxInFlight = i.inFlight
	}
	for k, f := range i.faults {
		if f.PathPrefix != "" && !strings.HasPrefix(path, f.PathPrefix) {
			continue
		}
		applied := *f
		if f.Count > 0 {
			f.Remaining--
			if f.Remaining <= 0 {
				i.faults = append(i.faults[:k], i.faults[k+1:]...)
			}
		}
		i.injected++
		return &applied
	}
	return nil
}

func (i *Instrumented) end() {
	i.mu.Lock()
	i.inFlight--
	i.mu.Unlock()
}

func (i *Instrumented) countStatus(status string) {
	i.mu.Lock()
	i.byStatus[status]++
	i.mu.Unlock()
}

// ServeHTTP answers control requests, or counts the request, applies a
// matching fault and calls the wrapped handler. The answer's status is
// counted before its first byte leaves, so a client that has read an
// answer finds it in the stats.
func (i *Instrumented) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, ControlPrefix) || r.URL.Path == strings.TrimSuffix(ControlPrefix, "/") {
		i.serveControl(w, r)
		return
	}
	f := i.begin(r.URL.Path)
	recorded := false
	record := func(status string) {
		if !recorded {
			recorded = true
			i.countStatus(status)
		}
	}
	defer func() {
		record("canceled") // nothing was answered
		i.end()
	}()
	serve := func() {
		sw := &statusWriter{ResponseWriter: w, onStatus: func(code int) { record(strconv.Itoa(code)) }}
		i.next.ServeHTTP(sw, r)
		record(strconv.Itoa(sw.code()))
	}

	if f == nil {
		serve()
		return
	}
	if f.Latency > 0 {
		if err := i.sleep(r.Context(), time.Duration(f.Latency)); err != nil {
			return
		}
	}
	switch {
	case f.Status != 0:
		body := f.Body
		if body == "" {
			b, _ := json.Marshal(map[string]any{"error": fmt.Sprintf("emulator: injected fault %d", f.ID), "status": f.Status})
			body = string(b)
			w.Header().Set("Content-Type", "application/json")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		record(strconv.Itoa(f.Status))
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(body))
	case f.Reset && f.ResetAfterBytes == 0:
		record("reset")
		resetConn(w)
	case f.Reset || f.BytesPerSecond > 0 || f.PadBytes > 0:
		rec := newRecorder()
		i.next.ServeHTTP(rec, r)
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		body := rec.body.Bytes()
		w.Header().Set("Content-Length", strconv.Itoa(len(body)+f.PadBytes))
		w.Header().Del("Transfer-Encoding")
		if f.PadBytes > 0 {
			record(strconv.Itoa(rec.code()))
			w.WriteHeader(rec.code())
			if r.Method != http.MethodHead {
				writePadded(w, body, f.PadBytes)
			}
			return
		}
		if f.Reset {
			record("reset")
			w.WriteHeader(rec.code())
			n := min(f.ResetAfterBytes, len(body))
			_, _ = w.Write(body[:n])
			_ = http.NewResponseController(w).Flush()
			resetConn(w)
			return
		}
		record(strconv.Itoa(rec.code()))
		w.WriteHeader(rec.code())
		i.writeSlowly(w, r, body, f.BytesPerSecond)
	default: // latency only
		serve()
	}
}

// writeSlowly sends body in tenth-of-a-second chunks at bps bytes per second.
func (i *Instrumented) writeSlowly(w http.ResponseWriter, r *http.Request, body []byte, bps int) {
	chunk := max(1, bps/10)
	rc := http.NewResponseController(w)
	for len(body) > 0 {
		n := min(chunk, len(body))
		if _, err := w.Write(body[:n]); err != nil {
			return
		}
		_ = rc.Flush()
		body = body[n:]
		if len(body) == 0 {
			return
		}
		if err := i.sleep(r.Context(), time.Duration(n)*time.Second/time.Duration(bps)); err != nil {
			return
		}
	}
}

// spaces is the padding PadBytes sends, a chunk at a time.
var spaces = bytes.Repeat([]byte{' '}, 32<<10)

// writePadded sends body and then pad spaces, until the client goes.
func writePadded(w http.ResponseWriter, body []byte, pad int) {
	if _, err := w.Write(body); err != nil {
		return
	}
	for pad > 0 {
		n := min(pad, len(spaces))
		if _, err := w.Write(spaces[:n]); err != nil {
			return
		}
		pad -= n
	}
}

// resetConn closes the client connection with an RST. When the connection
// cannot be hijacked (HTTP/2), the handler aborts, which resets the stream.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func (i *Instrumented) serveControl(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/_emulator/stats":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w, "GET, HEAD")
			return
		}
		writeJSON(w, http.StatusOK, i.Stats())
	case "/_emulator/faults":
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			writeJSON(w, http.StatusOK, map[string]any{"faults": i.Faults()})
		case http.MethodPost:
			var f Fault
			d := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
			d.DisallowUnknownFields()
			if err := d.Decode(&f); err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "fault: " + err.Error()})
				return
			}
			if f.ID != 0 || f.Remaining != 0 {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "fault: id and remaining are set by the emulator"})
				return
			}
			id, err := i.AddFault(f)
			if err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "fault: " + err.Error()})
				return
			}
			writeJSON(w, http.StatusCreated, map[string]int{"id": id})
		case http.MethodDelete:
			if v := r.URL.Query().Get("id"); v != "" {
				id, err := strconv.Atoi(v)
				if err != nil {
					writeJSON(w, http.StatusBadRequest, map[string]string{"error": "id must be a number"})
					return
				}
				if !i.RemoveFault(id) {
					writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no fault with id %d", id)})
					return
				}
			} else {
				i.ClearFaults()
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			methodNotAllowed(w, "GET, HEAD, POST, DELETE")
		}
	case "/_emulator/reset":
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return
		}
		i.Reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown control endpoint; use /_emulator/stats, /_emulator/faults or /_emulator/reset"})
	}
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed; use " + allow})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// statusWriter remembers the status the wrapped handler wrote and reports
// it before passing it on.
type statusWriter struct {
	http.ResponseWriter
	status   int
	onStatus func(int)
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
		s.onStatus(code)
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
		s.onStatus(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// Unwrap lets http.ResponseController reach the real writer (Flush,
// Hijack, deadlines).
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// recorder buffers a whole answer.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
}
func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// SortedPaths returns the paths of s.ByPath, most requested first (ties by
// path), for reports.
func (s Stats) SortedPaths() []string {
	out := make([]string, 0, len(s.ByPath))
	for p := range s.ByPath {
		out = append(out, p)
	}
	sort.Slice(out, func(a, b int) bool {
		if s.ByPath[out[a]] != s.ByPath[out[b]] {
			return s.ByPath[out[a]] > s.ByPath[out[b]]
		}
		return out[a] < out[b]
	})
	return out
}

// ClientAddress is the address a platform's own rate limit keys on: the
// rightmost X-Forwarded-For address (what the platform's front proxy
// added), else the remote address without its port.
func ClientAddress(r *http.Request) string {
	if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
		parts := strings.Split(xff[len(xff)-1], ",")
		if ip := strings.TrimSpace(parts[len(parts)-1]); ip != "" {
			return ip
		}
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
