package certs

import "crypto/tls"

// minVersion is the oldest TLS version the configs speak: TLS 1.2, as
// every supported Java (the Hive hook) and Prometheus speak it.
const minVersion = tls.VersionTLS12

// nextProtos are the application protocols a server offers: HTTP/2, then
// HTTP/1.1. A config returned by GetConfigForClient replaces the one
// net/http filled in, so it has to name them itself.
var nextProtos = []string{"h2", "http/1.1"}

// ServerConfig returns the config of a server that presents pair. With
// clientCAs it asks every client for a certificate and refuses the
// handshake unless one signed by those CAs comes (mutual TLS); nil
// accepts any client. Each handshake reads the pair and the CAs in use at
// that moment.
func ServerConfig(pair *Pair, clientCAs *Pool) *tls.Config {
	if pair == nil {
		panic("BUG: certs.ServerConfig without a certificate pair")
	}
	forClient := func(*tls.ClientHelloInfo) (*tls.Config, error) {
		c := &tls.Config{MinVersion: minVersion, NextProtos: nextProtos, GetCertificate: pair.GetCertificate}
		if clientCAs != nil {
			c.ClientCAs = clientCAs.CertPool()
			c.ClientAuth = tls.RequireAndVerifyClientCert
		}
		return c, nil
	}
	return &tls.Config{MinVersion: minVersion, NextProtos: nextProtos, GetCertificate: pair.GetCertificate,
		GetConfigForClient: forClient}
}

// ClientConfig returns the config of a client that trusts the servers
// signed by roots (the system's roots when nil) and, with pair, presents
// that certificate to a server that asks for one. The roots are those in
// use when ClientConfig is called; the pair is read at each handshake.
func ClientConfig(roots *Pool, pair *Pair) *tls.Config {
	c := &tls.Config{MinVersion: minVersion}
	if roots != nil {
		c.RootCAs = roots.CertPool()
	}
	if pair != nil {
		c.GetClientCertificate = pair.GetClientCertificate
	}
	return c
}
