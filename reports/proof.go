package reports

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// A client that found a service in a registry (ZooKeeper or etcd, where
// anyone who may write can add an entry) sends it the bearer token only
// once the service proved it holds the token too. It sends a fresh nonce
// in ChallengeHeader, on any request and without the token; a service
// with a token answers, whatever the status, with ProofHeader: Proof of
// the token, its own registered address and the nonce. The client
// compares it with the Proof it computes for the address it reached
// (VerifyProof). A fake entry learns no token: it has none to prove with,
// and a proof it fetches from a real service names that service's
// address, not its own.
const (
	ChallengeHeader = "Slowpeer-Challenge"
	ProofHeader     = "Slowpeer-Proof"
)

// proofLabel separates these MACs from any other use of the token.
const proofLabel = "slowpeer proof v1"

// NewChallenge returns a fresh nonce: 32 hexadecimal digits from
// crypto/rand.
func NewChallenge() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidChallenge reports whether a nonce is one a service answers: 32 to
// 64 lower-case hexadecimal digits.
func ValidChallenge(nonce string) bool {
	if len(nonce) < 32 || len(nonce) > 64 {
		return false
	}
	for i := range len(nonce) {
		if c := nonce[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Proof is the answer of the service registered as addr ("host:port")
// to nonce: hex(HMAC-SHA256(token, label 0 addr 0 nonce)).
func Proof(token, addr, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(proofLabel + "\x00" + addr + "\x00" + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// VerifyProof reports, in constant time, whether proof is what the
// service at addr holding token answers to nonce.
func VerifyProof(token, addr, nonce, proof string) bool {
	return hmac.Equal([]byte(Proof(token, addr, nonce)), []byte(proof))
}
