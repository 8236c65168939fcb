// Package certs loads the TLS files of a daemon (a certificate and key
// pair, a bundle of CA certificates), re-reads them on demand without
// dropping connections, and builds the server and client tls.Config that
// use them.
//
// A re-read (Pair.Reload, Pool.Reload, on SIGHUP in the binary) swaps an
// atomic pointer: connections already open keep the certificate they were
// made with, and every handshake after it sees the new files, because the
// configs read the pointer at each handshake (tls.Config.GetCertificate,
// GetConfigForClient and GetClientCertificate). A re-read that fails keeps
// what was loaded before.
package certs
