// CoreDNS with only the plugins test/env's Corefiles use: bind, errors, etcd (test/env/dns.ts),
// and rewrite, kubernetes (the clusterset stanza, test/env/clusterset-dns.ts).
// CoreDNS's own main imports every plugin (core/plugin), which is three times the packages to
// compile on a cold machine; a main that imports fewer plugins is CoreDNS's documented way to
// build a smaller server. Add a plugin here when the Corefile starts using it.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/etcd"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/rewrite"
)

// used are the Corefile directives this build serves, in CoreDNS's order (zdirectives.go).
var used = map[string]bool{"bind": true, "errors": true, "etcd": true, "kubernetes": true, "rewrite": true}

func main() {
	var directives []string
	for _, d := range dnsserver.Directives {
		if used[d] {
			directives = append(directives, d)
		}
	}
	dnsserver.Directives = directives
	coremain.Run()
}
