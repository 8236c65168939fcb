package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"

	"github.com/slowpeer/slowpeer/certs"
)

// serverTLSFlags are the TLS flags of "slowpeer namenode": -tls-cert and
// -tls-key make it serve HTTPS only, -tls-client-ca makes it ask every
// client for a certificate signed by that CA (mutual TLS).
type serverTLSFlags struct {
	cert, key, clientCA string
}

func (f *serverTLSFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.cert, "tls-cert", "", "PEM `F` with the service's certificate (and intermediates): serve HTTPS only; re-read on SIGHUP")
	fs.StringVar(&f.key, "tls-key", "", "PEM `F` with the private key of -tls-cert; re-read on SIGHUP")
	fs.StringVar(&f.clientCA, "tls-client-ca", "", "PEM `F` of the CAs whose client certificates are accepted; any other client is refused (mutual TLS); re-read on SIGHUP. "+
		"A starting replica also trusts them for the other replicas' certificates, and presents its -tls-cert to them, when it takes their state")
}

// serverTLS is what the TLS flags of "slowpeer namenode" load.
type serverTLS struct {
	// server is the service's config, nil without -tls-cert.
	server *tls.Config
	// peer is the config the service reads the other replicas with (GET
	// /v1/state at start): its own certificate as the client's, and the
	// -tls-client-ca CAs as the roots (the system's without it), as
	// replicas of one service present certificates of one CA. Nil
	// without -tls-cert.
	peer *tls.Config
	// reload is what SIGHUP re-reads.
	reload []reloadable
}

// load reads the files.
func (f *serverTLSFlags) load() (serverTLS, error) {
	if f.cert == "" && f.key == "" {
		if f.clientCA != "" {
			return serverTLS{}, errors.New("-tls-client-ca needs -tls-cert and -tls-key")
		}
		return serverTLS{}, nil
	}
	pair, err := loadPair("-tls-cert", f.cert, "-tls-key", f.key)
	if err != nil {
		return serverTLS{}, err
	}
	re := []reloadable{pairReloadable(pair)}
	var clientCAs *certs.Pool
	if f.clientCA != "" {
		if clientCAs, err = certs.LoadPool(f.clientCA); err != nil {
			return serverTLS{}, fmt.Errorf("-tls-client-ca: %w", err)
		}
		re = append(re, reloadable{"client CAs " + f.clientCA, clientCAs.Reload, nil})
	}
	return serverTLS{server: certs.ServerConfig(pair, clientCAs), peer: certs.ClientConfig(clientCAs, pair), reload: re}, nil
}

// clientFlags are the flags of a client of the service (the agent,
// "report", "hiveserver pick"): -tls-ca, the CAs that sign the services'
// certificates, and -tls-cert and -tls-key for mutual TLS; and
// -auth-token-file, the bearer token.
type clientFlags struct {
	ca, cert, key string
	tokenFile     string
}

// register adds the flags; tokenUse says what the token is sent with.
func (f *clientFlags) register(fs *flag.FlagSet, tokenUse string) {
	fs.StringVar(&f.ca, "tls-ca", "", "PEM `F` of the CAs that sign the services' certificates, for https:// services (default: the system's roots)")
	fs.StringVar(&f.cert, "tls-cert", "", "PEM `F` with the client certificate for a service with -tls-client-ca (mutual TLS); re-read on SIGHUP")
	fs.StringVar(&f.key, "tls-key", "", "PEM `F` with the private key of -tls-cert; re-read on SIGHUP")
	fs.StringVar(&f.tokenFile, "auth-token-file", "", "`F`, a file holding the bearer token sent with "+tokenUse)
}

// tls reads the TLS files and returns the client's config (nil with no
// TLS flag: Go's defaults, the system's roots) and what SIGHUP re-reads.
func (f *clientFlags) tls() (*tls.Config, []reloadable, error) {
	if f.ca == "" && f.cert == "" && f.key == "" {
		return nil, nil, nil
	}
	var roots *certs.Pool
	var err error
	if f.ca != "" {
		if roots, err = certs.LoadPool(f.ca); err != nil {
			return nil, nil, fmt.Errorf("-tls-ca: %w", err)
		}
	}
	var pair *certs.Pair
	var re []reloadable
	if f.cert != "" || f.key != "" {
		if pair, err = loadPair("-tls-cert", f.cert, "-tls-key", f.key); err != nil {
			return nil, nil, err
		}
		re = append(re, pairReloadable(pair))
	}
	return certs.ClientConfig(roots, pair), re, nil
}

// client returns what the one-shot commands read the service with: an
// HTTP client with the TLS flags, and the token.
func (f *clientFlags) client() (serviceClient, error) {
	cfg, _, err := f.tls()
	if err != nil {
		return serviceClient{}, err
	}
	c := serviceClient{http: http.DefaultClient}
	if cfg != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = cfg
		c.http = &http.Client{Transport: tr}
	}
	if f.tokenFile != "" {
		if c.token, err = readTokenFile(f.tokenFile); err != nil {
			return serviceClient{}, err
		}
	}
	return c, nil
}

// loadPair reads a certificate and key given by two flags, which go
// together.
func loadPair(certFlag, cert, keyFlag, key string) (*certs.Pair, error) {
	if cert == "" || key == "" {
		return nil, fmt.Errorf("%s and %s go together", certFlag, keyFlag)
	}
	p, err := certs.LoadPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", certFlag, err)
	}
	if exp := p.Leaf().NotAfter; time.Now().After(exp) {
		return nil, fmt.Errorf("%s: %s expired at %s", certFlag, cert, exp.UTC().Format(time.RFC3339))
	}
	return p, nil
}

func pairReloadable(p *certs.Pair) reloadable {
	return reloadable{"certificate", p.Reload, p.Describe}
}
