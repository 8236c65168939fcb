package main

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/slowpeer/slowpeer/namenode"
)

// trustedPeers returns those of peers (base URLs of replicas found in the
// registry, where anyone who may write can add an entry) that may be sent
// the token and, for a starting replica, give it their state: those
// reached over HTTPS, whose certificate the client verified for the host
// the registry named, and over plain HTTP, with a token, those that
// prove they hold it too (namenode.Authenticate). A plain-HTTP replica of
// an open service cannot be told from a fake entry and is left out (the
// state then comes from the file). All are asked at once, within ctx;
// log, when set, hears of those left out.
func trustedPeers(ctx context.Context, client *http.Client, peers []string, token string, log *slog.Logger) []string {
	ok := make([]bool, len(peers))
	var wg sync.WaitGroup
	for i, p := range peers {
		switch {
		case strings.HasPrefix(p, "https://"):
			ok[i] = true // the TLS handshake checks it
		case token != "":
			wg.Go(func() {
				err := namenode.Authenticate(ctx, client, p, namenode.StatePath, token)
				if err != nil {
					log.Warn("a registered replica is not trusted with the token or its state", slog.Any("err", err))
				}
				ok[i] = err == nil
			})
		default:
			log.Warn("a registered replica of an open service over plain HTTP cannot be authenticated: its state is not taken", slog.String("replica", p))
		}
	}
	wg.Wait()
	var out []string
	for i, p := range peers {
		if ok[i] {
			out = append(out, p)
		}
	}
	return out
}
