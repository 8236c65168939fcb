package main

import (
	"io"
	"net/http"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
)

// mountPicker serves the HiveServer picker p beside the slow-peer API of
// srv: the hook endpoint POST /rest/hiveserver/send (behind the bearer
// token like every POST), GET /v1/hiveservers and GET /v1/hiveservers/pick,
// which keep new statements away from the hosts of srv.AvoidedHosts (slow
// or excluded); and its families on /metrics (Picker.WriteMetrics). now
// is the clock both read (time.Now outside tests). Call it before srv
// serves.
func mountPicker(srv *namenode.Server, p *hiveserver.Picker, now func() time.Time) {
	slow := func() []string { return srv.AvoidedHosts(now()) }
	srv.Handle(http.MethodPost, hiveserver.SendPath, p.SendHandler())
	srv.Handle(http.MethodGet, hiveserver.ServersPath, p.ServersHandler(slow))
	srv.Handle(http.MethodGet, hiveserver.PickPath, p.PickHandler(slow))
	srv.AddMetrics(func(w io.Writer) {
		t := now()
		p.WriteMetrics(w, t, srv.AvoidedHosts(t))
	})
}
