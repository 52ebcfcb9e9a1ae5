// upstream is the benchmark's platform: HTTPS (TLS 1.3, ECDSA P-256
// self-signed for its IP), a 200-byte JSON answer, and counters of new
// connections and requests at /stats.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "10.200.0.2:8443", "listen address")
	certOut := flag.String("cert", "upstream.pem", "where to write the certificate (PEM)")
	idle := flag.Duration("idle", 5*time.Minute, "server idle timeout for kept-alive connections")
	flag.Parse()

	host, _, _ := net.SplitHostPort(*addr)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "bench upstream"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP(host)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*certOut, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		log.Fatal(err)
	}
	var conns, requests atomic.Int64
	body := `{"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_id":"1","_source":{"name":"` + strings.Repeat("x", 120) + `"}}]}}`
	mux := http.NewServeMux()
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d %d\n", conns.Load(), requests.Load())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	})
	srv := &http.Server{
		Addr:        *addr,
		Handler:     mux,
		IdleTimeout: *idle,
		TLSConfig: &tls.Config{
			MinVersion:   tls.VersionTLS13,
			Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		},
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	}
	log.Printf("upstream on https://%s (idle timeout %v, %d-byte body)", *addr, *idle, len(body))
	log.Fatal(srv.ListenAndServeTLS("", ""))
}
