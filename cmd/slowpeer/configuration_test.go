package main

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
)

// docKeys returns the key table under "## Keys" in docs/configuration.md:
// key → default, as written (backquotes removed).
func docKeys(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(configurationDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]string{}
	section, table := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line == "## Keys"
			continue
		case !section:
			continue
		case !strings.HasPrefix(line, "|"):
			if table {
				return keys // the table has ended
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			t.Fatalf("docs/configuration.md: a row of the key table with fewer than two cells: %q", line)
		}
		key := strings.TrimSpace(cells[0])
		if !table { // the header, then the --- row
			table = true
			continue
		}
		if strings.HasPrefix(key, "---") {
			continue
		}
		if !strings.HasPrefix(key, "`") || !strings.HasSuffix(key, "`") {
			t.Fatalf("docs/configuration.md: key %q is not in backquotes", key)
		}
		key = strings.Trim(key, "`")
		if _, dup := keys[key]; dup {
			t.Fatalf("docs/configuration.md: %s is listed twice", key)
		}
		keys[key] = strings.TrimSpace(strings.ReplaceAll(cells[1], "`", ""))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(keys) == 0 {
		t.Fatal(`docs/configuration.md: no key table under "## Keys"`)
	}
	return keys
}

// configurationDoc is the page whose key table the test keeps true.
const configurationDoc = "../../docs/configuration.md"

// The key table of docs/configuration.md lists exactly the keys the
// daemons read, with the defaults they have.
func TestDocumentedKeys(t *testing.T) {
	doc := docKeys(t)
	want := map[string]string{}
	for _, ds := range [][]keyDefault{
		datanodeKeys.defaults(datanode.DefaultConfig()),
		namenodeKeys.defaults(namenode.DefaultConfig()),
		hiveserverKeys.defaults(hiveserver.DefaultConfig()),
		registryKeys.defaults(discovery.DefaultReplicaConfig()),
		etcdTLSKeys.defaults(discovery.EtcdTLS{}),
	} {
		for _, d := range ds {
			want[d.name] = d.value
		}
	}
	for k, v := range want {
		got, ok := doc[k]
		switch {
		case !ok:
			t.Errorf("docs/configuration.md lacks %s (default %s)", k, v)
		case got != v:
			t.Errorf("docs/configuration.md: %s defaults to %q; the daemons say %q", k, got, v)
		}
	}
	for k := range doc {
		if _, ok := want[k]; !ok {
			t.Errorf("docs/configuration.md lists %s, which no daemon reads", k)
		}
	}
}
