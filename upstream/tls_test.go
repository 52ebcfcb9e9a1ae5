package upstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// A TLS platform gets its own host name as SNI, and its certificate is
// checked against that name: a pooled connection passed the same check as
// a new one and serves only its host.
func TestTLSServerNameAndVerification(t *testing.T) {
	var gotSNI, gotHost string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotSNI, gotHost = r.TLS.ServerName, r.Host
		io.WriteString(w, "ok")
	}))
	srv.StartTLS()
	defer srv.Close()

	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate()) // httptest's certificate names example.com
	newTransport := func(roots *x509.CertPool) *http.Transport {
		tr := NewTransport(TransportOptions{
			DialTimeout: 5 * time.Second,
			IdleTimeout: time.Minute,
			Policy:      AddrPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8")}},
			TLS:         &tls.Config{RootCAs: roots},
		})
		// "example.com:443" is the test server on loopback.
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dial(ctx, network, srv.Listener.Addr().String())
		}
		return tr
	}

	tr := newTransport(pool)
	req, _ := http.NewRequest("GET", "https://example.com/api/status", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotSNI != "example.com" || gotHost != "example.com" {
		t.Errorf("SNI %q, Host %q: want the platform's host name for both", gotSNI, gotHost)
	}

	// A certificate that does not verify is refused.
	req, _ = http.NewRequest("GET", "https://example.com/api/status", nil)
	if resp, err := newTransport(x509.NewCertPool()).RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatal("an unverified certificate was accepted")
	}
}
