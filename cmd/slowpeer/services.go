package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/slowpeer/slowpeer/discovery"
)

// registryReadTimeout bounds the one read of a registry that "report" and
// "hiveserver pick" make.
const registryReadTimeout = 10 * time.Second

// serviceBases returns the base URLs -namenode names: the URL itself, or,
// for a registry URL (its etcd reached with etcd, nil: plain), the base
// URL of every replica registered there now (read once), in the order of
// their registration; with c's token, only those that may be sent it
// (trustedPeers).
func serviceBases(ctx context.Context, spec string, etcd *tls.Config, c serviceClient) ([]string, error) {
	if !discovery.IsRegistryURL(spec) {
		return []string{spec}, nil
	}
	u, err := discovery.ParseRegistryURL(spec)
	if err != nil {
		return nil, usageError{fmt.Errorf("-namenode: %w", err)}
	}
	u.TLS = etcd
	ms, err := registeredMembers(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("-namenode: %w", err)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("-namenode: no replica is registered in %s", u)
	}
	bases := discovery.MemberURLs(ms)
	if c.token != "" {
		if bases = trustedPeers(ctx, c.http, bases, c.token, slog.New(slog.DiscardHandler)); len(bases) == 0 {
			return nil, fmt.Errorf("-namenode: no replica registered in %s proves it holds the token (over plain HTTP it must)", u)
		}
	}
	return bases, nil
}

// registeredMembers reads, once, the replicas registered in u.
func registeredMembers(ctx context.Context, u discovery.RegistryURL) ([]discovery.Member, error) {
	reg, err := discovery.OpenRegistry(u, 0, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	ctx, cancel := context.WithTimeout(ctx, registryReadTimeout)
	defer cancel()
	return reg.Members(ctx)
}

// registeredPeers returns the base URLs of the replicas registered in u
// but self, for a starting replica to take the state of; nil when the
// registry cannot be read (the replica then starts from its file).
func registeredPeers(ctx context.Context, u discovery.RegistryURL, self string, log *slog.Logger) []string {
	ms, err := registeredMembers(ctx, u)
	if err != nil {
		log.Warn("read the registered replicas to take their state", slog.Any("err", err))
		return nil
	}
	var others []discovery.Member
	for _, m := range ms {
		if m.Server != self {
			others = append(others, m)
		}
	}
	return discovery.MemberURLs(others)
}

// errNoAnswer marks an attempt on one replica that got no answer, so the
// next replica is tried.
var errNoAnswer = errors.New("no answer")

// noAnswerError is an error that wraps errNoAnswer without changing the
// text of the error it holds.
type noAnswerError struct{ err error }

func (e noAnswerError) Error() string        { return e.err.Error() }
func (e noAnswerError) Unwrap() error        { return e.err }
func (e noAnswerError) Is(target error) bool { return target == errNoAnswer }

// firstAnswer runs try on each base in turn until one answers (its error
// does not wrap errNoAnswer), and returns that; when none answers it
// returns every error, joined.
func firstAnswer(bases []string, try func(base string) error) error {
	var errs []error
	for _, b := range bases {
		err := try(b)
		if !errors.Is(err, errNoAnswer) {
			return err
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
