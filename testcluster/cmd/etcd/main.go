// etcd is the etcd server of the test cluster: etcd's own entry point, built from go.etcd.io/etcd/server/v3
// at the version Kubernetes 1.36 is tested with.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
