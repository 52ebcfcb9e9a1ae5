package cache

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/cachestatus"
)

// fetchWriter receives the upstream answer of a flight: buffered while it
// fits (so every waiter gets the whole body, exactly once), streamed
// straight to the leader's writer once it does not.
type fetchWriter struct {
	w             http.ResponseWriter // the leader's; nil for a background refresh
	header        http.Header
	status        int
	wroteHeader   bool
	buf           []byte
	max           int64
	passthrough   bool
	onPassthrough func()
}

func (fw *fetchWriter) Header() http.Header { return fw.header }

func (fw *fetchWriter) WriteHeader(code int) {
	if fw.wroteHeader || code < 200 {
		return // 1xx are informational; only the final answer counts
	}
	fw.wroteHeader = true
	fw.status = code
	if cl, err := strconv.ParseInt(fw.header.Get("Content-Length"), 10, 64); err == nil && cl > fw.max {
		fw.goPassthrough()
		return
	}
	if strings.HasPrefix(fw.header.Get("Content-Type"), "text/event-stream") {
		fw.goPassthrough()
	}
}

func (fw *fetchWriter) Write(p []byte) (int, error) {
	if !fw.wroteHeader {
		fw.WriteHeader(http.StatusOK)
	}
	if !fw.passthrough && int64(len(fw.buf)+len(p)) > fw.max {
		fw.goPassthrough()
	}
	if fw.passthrough {
		if fw.w == nil {
			return len(p), nil
		}
		return fw.w.Write(p)
	}
	fw.buf = append(fw.buf, p...)
	return len(p), nil
}

// FlushError lets reverse_proxy flush a streamed answer; while buffering
// it does nothing, so nothing is committed early.
func (fw *fetchWriter) FlushError() error {
	if fw.passthrough && fw.w != nil {
		return http.NewResponseController(fw.w).Flush()
	}
	return nil
}

func (fw *fetchWriter) goPassthrough() {
	fw.passthrough = true
	if fw.onPassthrough != nil {
		fw.onPassthrough()
	}
	if fw.w != nil {
		h := fw.w.Header()
		for k, vs := range fw.header {
			if k == cachestatus.Header {
				continue
			}
			h[k] = vs
		}
		fw.w.WriteHeader(fw.status)
		if len(fw.buf) > 0 {
			_, _ = fw.w.Write(fw.buf)
		}
	}
	fw.buf = nil
}

func (fw *fetchWriter) result(err error, aborted bool) *result {
	if aborted {
		return &result{err: err, shared: true, detail: "incomplete"}
	}
	if err != nil && !fw.wroteHeader {
		return &result{err: err, shared: true, rejected: isRejection(err), retryAfter: fw.header.Get("Retry-After")}
	}
	if err != nil {
		// Something was written and then an error came back: the body
		// may be cut off. Never store it; share it as an error.
		return &result{err: err, shared: true, detail: "incomplete"}
	}
	if !fw.wroteHeader {
		fw.status = http.StatusOK
	}
	res := &result{shared: true, status: fw.status, header: fw.header, body: fw.buf}
	if fw.status == http.StatusTooManyRequests || fw.status >= 500 {
		// The platform's own refusal: shared with every waiter (it is the
		// platform's answer), never stored, Retry-After included.
		res.retryAfter = fw.header.Get("Retry-After")
	}
	return res
}
