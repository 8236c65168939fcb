// Package dashboard is the operator's page of the NameNode-side service,
// served under /ui/: the slow nodes now (who reports them, how much slower
// than the median, since when, and the diagnosis where the service has
// one), a heatmap of reporter × peer latency, the DataNodes, the
// HiveServers with the current pick, and the service's replicas.
//
// The page is rendered on the server with html/template as plain HTML
// tables (a <caption>, <th scope> headers, words beside every color), so
// it reads without JavaScript, with a keyboard and with a screen reader;
// without JavaScript it reloads itself every few seconds. A small embedded
// script subscribes to /ui/events, server-sent events that carry the
// re-rendered sections, and swaps them in; EventSource reconnects by
// itself, so the page keeps working across a restart of the service.
// Nothing is loaded from elsewhere: the assets are embedded with go:embed.
//
// The dashboard knows nothing of where its data comes from: a Source
// gives it a View, whose optional parts (the diagnosis, the latency
// matrix, the HiveServers, the replicas) are nil when the service does not
// have them, and the page then says "not available" for that part.
package dashboard
