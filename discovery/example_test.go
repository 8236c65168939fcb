package discovery_test

import (
	"fmt"

	"github.com/slowpeer/slowpeer/discovery"
)

func ExampleParseName() {
	n, err := discovery.ParseName("serverUri=hs1.example.com:10000;version=3.1.3;sequence=0000000012")
	if err != nil {
		panic(err)
	}
	fmt.Println(n.Server, n.Version, n.Sequence)
	fmt.Println(n.Prefix())
	// Output:
	// hs1.example.com:10000 3.1.3 0000000012
	// serverUri=hs1.example.com:10000;version=3.1.3;sequence=
}

func ExampleEndpoint() {
	for _, data := range []string{
		"hive.server2.thrift.bind.host=hs1.example.com;hive.server2.transport.mode=binary;hive.server2.thrift.port=10000",
		"hs2.example.com:10000",
		"",
	} {
		host, port, err := discovery.Endpoint([]byte(data))
		fmt.Println(host, port, err)
	}
	// Output:
	// hs1.example.com 10000 <nil>
	// hs2.example.com 10000 <nil>
	//  0 znode data "" is not host:port
}

func ExampleRecord() {
	reg := &discovery.Registration{
		Name: discovery.Name{Server: "hs2.example.com:10001", Version: "4.0.1"},
		Data: []byte("hive.server2.transport.mode=http;hive.server2.thrift.http.port=10001;hive.server2.thrift.http.path=cliservice"),
	}
	prefix, data, err := discovery.Record("hs2.example.com:10001", reg, discovery.DefaultVersion, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(prefix)
	fmt.Println(string(data))
	// Output:
	// serverUri=hs2.example.com:10001;version=4.0.1;sequence=
	// hive.server2.thrift.bind.host=hs2.example.com;hive.server2.thrift.port=10001;hive.server2.thrift.http.port=10001;hive.server2.instance.uri=hs2.example.com:10001;hive.server2.transport.mode=http;hive.server2.thrift.http.path=cliservice
}
