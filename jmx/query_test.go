package jmx

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// queryBeans are bean names as an MBeanServer could hold them, plus two it
// could not (a malformed name and a pattern), which nothing may select.
var queryBeans = []Bean{
	{Name: "Hadoop:service=NameNode,name=NameNodeStatus"},
	{Name: "Hadoop:service=NameNode,name=FSNamesystemState"},
	{Name: "Hadoop:service=DataNode,name=DataNodeInfo"},
	{Name: "java.lang:type=Runtime"},
	{Name: "java.lang:type=GarbageCollector,name=PS Scavenge"},
	{Name: `Hadoop:service=X,name="a,b"`},
	{Name: `Hadoop:service=Y,name="a\*b"`},
	{Name: "DefaultDomain:type=Foo"},
	{Name: "not an object name"},
	{Name: "Hadoop:service=NameNode,*"},
}

func names(beans []Bean) []string {
	out := make([]string, 0, len(beans))
	for _, b := range beans {
		out = append(out, b.Name)
	}
	return out
}

// Reference: javax.management.ObjectName (construct, apply, matchDomains,
// matchKeys) and com.sun.jmx.mbeanserver.Repository.query.
func TestQuery(t *testing.T) {
	f := func(qry string, want ...string) {
		t.Helper()
		got, err := Query(queryBeans, qry)
		if err != nil {
			t.Fatalf("Query(%q): %v", qry, err)
		}
		if !slices.Equal(names(got), want) {
			t.Fatalf("Query(%q) = %q, want %q", qry, names(got), want)
		}
	}
	nnStatus := "Hadoop:service=NameNode,name=NameNodeStatus"
	nnState := "Hadoop:service=NameNode,name=FSNamesystemState"
	dnInfo := "Hadoop:service=DataNode,name=DataNodeInfo"
	runtime := "java.lang:type=Runtime"
	gc := "java.lang:type=GarbageCollector,name=PS Scavenge"
	quoted := `Hadoop:service=X,name="a,b"`
	escaped := `Hadoop:service=Y,name="a\*b"`
	dflt := "DefaultDomain:type=Foo"
	all := []string{nnStatus, nnState, dnInfo, runtime, gc, quoted, escaped, dflt}

	// Exact names; key properties are an unordered set.
	f(nnStatus, nnStatus)
	f("Hadoop:name=NameNodeStatus,service=NameNode", nnStatus)
	f(gc, gc)
	f("Hadoop:service=NameNode")
	f("Hadoop:service=NameNode,name=NameNodeStatus,x=y")
	f("hadoop:service=NameNode,name=NameNodeStatus") // case matters
	f("Hadoop:service=NameNode,name=namenodestatus")
	f("Hadoop:service=Nope,name=Nope")
	// Everything: *:* and the empty name (new ObjectName("") is *:*).
	f("*:*", all...)
	f("", all...)
	// Domain patterns.
	f("Hadoop:*", nnStatus, nnState, dnInfo, quoted, escaped)
	f("java.*:*", runtime, gc)
	f("Had??p:*", nnStatus, nnState, dnInfo, quoted, escaped)
	f("Had?p:*")
	f("*:type=Runtime", runtime)
	f("*:type=*", runtime, dflt)
	// Property list patterns: these keys, maybe more.
	f("Hadoop:service=NameNode,*", nnStatus, nnState)
	f("Hadoop:*,service=NameNode", nnStatus, nnState)
	f("Hadoop:name=NameNodeStatus,*", nnStatus)
	f("*:name=NameNodeStatus,*", nnStatus)
	f("Hadoop:service=NameNode,name=NameNodeStatus,*", nnStatus)
	f("java.lang:name=PS Scavenge,*", gc)
	// Property value patterns: without ",*" the key sets must be equal.
	f("Hadoop:service=NameNode,name=*", nnStatus, nnState)
	f("Hadoop:name=*,service=NameNode", nnStatus, nnState)
	f("Hadoop:service=*")
	f("Hadoop:service=*,*", nnStatus, nnState, dnInfo, quoted, escaped)
	f("Hadoop:service=*Node,*", nnStatus, nnState, dnInfo)
	f("Hadoop:service=NameNode,name=NameNode?tatus", nnStatus)
	f("Hadoop:service=NameNode,name=FS*", nnState)
	f("Hadoop:service=NameNode,name=*Status*", nnStatus)
	f("Hadoop:service=NameNode,name=?")
	f("*:service=?ataNode,*", dnInfo)
	// Quoted values keep their quotes: "a,b" is not a,b.
	f(quoted, quoted)
	f(`Hadoop:service=X,name="a*"`, quoted) // wildcards work inside quotes
	f(`Hadoop:service=X,name="a?b"`, quoted)
	f(`Hadoop:service=X,name=a*`)
	// An escaped wildcard is no pattern: the raw value must be equal.
	f(escaped, escaped)
	f(`Hadoop:service=Y,name="a\*c"`)
	// Once a value is a pattern, Util.wildmatch sees every '*' and '?',
	// escaped or not, and the backslash as itself.
	f(`Hadoop:service=Y,name="a\*?"`, escaped)
	// An empty domain is the default domain.
	f(":type=Foo", dflt)
	f(":*", dflt)
	f("DefaultDomain:*", dflt)
}

// Reference: ObjectName.equals — canonical names, so property order never
// matters. Every permutation of a name selects the same beans.
func TestQueryPropertyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	props := []string{"service=NameNode", "name=NameNodeStatus", "sub=Rpc", "port=8020"}
	bean := []Bean{{Name: "Hadoop:" + strings.Join(props, ",")}}
	for range 50 {
		p := slices.Clone(props)
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		for _, qry := range []string{
			"Hadoop:" + strings.Join(p, ","),
			"Hadoop:" + strings.Join(p[:2], ",") + ",*",
			"Hadoop:*," + strings.Join(p[1:], ","),
		} {
			got, err := Query(bean, qry)
			if err != nil || len(got) != 1 {
				t.Fatalf("Query(%q) = %v, %v; want the bean", qry, names(got), err)
			}
		}
	}
}

// wildmatchReference is the naive version of wildmatch: a regular
// expression.
func wildmatchReference(s, pat string) bool {
	var re strings.Builder
	re.WriteString(`^(?s:`)
	for _, r := range pat {
		switch r {
		case '*':
			re.WriteString(`.*`)
		case '?':
			re.WriteString(`.`)
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString(`)$`)
	return regexp.MustCompile(re.String()).MatchString(s)
}

// Reference: com.sun.jmx.mbeanserver.Util.wildmatch.
func TestWildmatchAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune{'a', 'b', 'é', '\\', '"'}
	patAlphabet := append(slices.Clone(alphabet), '*', '?', '*')
	gen := func(from []rune, n int) string {
		r := make([]rune, rng.IntN(n))
		for i := range r {
			r[i] = from[rng.IntN(len(from))]
		}
		return string(r)
	}
	for range 20000 {
		s, pat := gen(alphabet, 8), gen(patAlphabet, 7)
		if got, want := wildmatch(s, pat), wildmatchReference(s, pat); got != want {
			t.Fatalf("wildmatch(%q, %q) = %v, want %v", s, pat, got, want)
		}
	}
	f := func(s, pat string, want bool) {
		t.Helper()
		if got := wildmatch(s, pat); got != want {
			t.Fatalf("wildmatch(%q, %q) = %v, want %v", s, pat, got, want)
		}
	}
	f("", "", true)
	f("", "*", true)
	f("", "?", false)
	f("é", "?", true) // one rune; Java counts UTF-16 units, the same here
	f("NameNodeStatus", "*Node*", true)
	f("NameNodeStatus", "*Node", false)
	f("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*a*b", true)
	f("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "*a*a*a*a*a*a*b", false)
}

func BenchmarkQuery(b *testing.B) {
	beans := make([]Bean, 0, 64)
	for _, n := range []string{"NameNode", "DataNode", "JournalNode", "ResourceManager"} {
		for _, m := range []string{"JvmMetrics", "RpcActivityForPort8020", "UgiMetrics", "MetricsSystem,sub=Stats",
			"NameNodeStatus", "FSNamesystemState", "NameNodeInfo", "StartupProgress"} {
			beans = append(beans, Bean{Name: "Hadoop:service=" + n + ",name=" + m})
		}
	}
	for _, qry := range []string{"*:*", "Hadoop:service=NameNode,*", "Hadoop:name=NameNodeStatus,service=NameNode"} {
		b.Run(qry, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Query(beans, qry); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzQuery checks that Query never panics and that its answers agree with
// each other: a valid bean name selects itself, in any property order, and
// "*:*" and "domain:*" select it; a pattern's canonical form parses back to
// the same pattern.
func FuzzQuery(f *testing.F) {
	for _, b := range queryBeans {
		f.Add("*:*", b.Name)
	}
	f.Add("Hadoop:service=NameNode,*", "Hadoop:service=NameNode,name=NameNodeStatus")
	f.Add(`d:k="a\*?"`, `d:k="a\*b"`)
	f.Add("d:*,", "d:k=")
	f.Add(":k=*", "DefaultDomain:k=v")
	f.Fuzz(func(t *testing.T, qry, name string) {
		beans := []Bean{{Name: name}}
		got, err := Query(beans, qry)
		if err != nil && got != nil {
			t.Fatalf("Query(%q) returned beans with its error", qry)
		}
		if pat, err := parseObjectName(qry); err == nil {
			again, err := parseObjectName(pat.canonical())
			if err != nil {
				t.Fatalf("canonical form %q of %q does not parse: %v", pat.canonical(), qry, err)
			}
			if again.canonical() != pat.canonical() || again.isPattern() != pat.isPattern() {
				t.Fatalf("canonical form of %q is not stable: %q then %q", qry, pat.canonical(), again.canonical())
			}
		}
		n, err := parseObjectName(name)
		if err != nil || n.isPattern() {
			if len(got) != 0 {
				t.Fatalf("Query(%q) selected %q, which no MBeanServer could hold", qry, name)
			}
			return
		}
		self := n.domain + ":"
		for i := len(n.props) - 1; i >= 0; i-- { // reversed order
			self += n.props[i].key + "=" + n.props[i].value
			if i > 0 {
				self += ","
			}
		}
		for _, q := range []string{name, self, "*:*", "", n.domain + ":*", n.canonical()} {
			sel, err := Query(beans, q)
			if err != nil || len(sel) != 1 {
				t.Fatalf("Query(%q) = %v, %v; want it to select %q", q, names(sel), err, name)
			}
		}
		if _, ok := Find(beans, self); !ok {
			t.Fatalf("Find(%q) did not find %q", self, name)
		}
	})
}
