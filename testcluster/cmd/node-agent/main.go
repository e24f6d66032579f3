// node-agent is the test cluster's kubelet: it registers nodes, keeps their leases, runs every pod the real
// scheduler binds to them as processes on this machine (the machine stands in for every image), writes the
// pods' status as a kubelet does, and serves their logs to the API server's pods/log proxy.
//
// Each container runs in a mount namespace of its own, where the pod's volumes (emptyDir, configMap, secret,
// downwardAPI, projected service-account token) are bind-mounted at the container's mount paths, so a command
// the Trainer renders finds its files where it would in a real pod.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == runContainerCommand {
		runContainer()
		return
	}
	kubeconfig := flag.String("kubeconfig", "", "the agent's kubeconfig")
	nodes := flag.Int("nodes", 1, "how many nodes to register")
	prefix := flag.String("node-prefix", "testcluster-node-", "node names are this prefix and a number")
	port := flag.Int("port", 10250, "the kubelet API port on 127.0.0.1")
	dir := flag.String("dir", "", "where pods' volumes and logs are kept")
	pki := flag.String("pki", "", "the cluster's pki directory")
	bridge := flag.String("pod-bridge", "", "the bridge of the pod network; none: pods share the node's network")
	clusterCIDR := flag.String("cluster-cidr", "", "the pod network (the node IPAM's cluster CIDR)")
	clusterDNS := flag.String("cluster-dns", "", "the address of the cluster's DNS server")
	cniBin := flag.String("cni-bin", "", "where the CNI plugins are")
	netnsPrefix := flag.String("netns-prefix", "testcluster-", "the pods' network namespaces are named this and an ID")
	images := flag.String("images", "", "the image table: what each image holds that this machine lacks")
	imageFiles := flag.String("image-files", "", "where the files are that the image table names by source")
	apiPort := flag.String("apiserver-port", "6443", "the API server's port, given to pods as KUBERNETES_SERVICE_PORT")
	fakeNodes := flag.Int("fake-nodes", 0, "how many fake nodes to register beside them (tainted as kwok's are)")
	fakeRunTime := flag.Duration("fake-run-time", 2*time.Second,
		"how long each container on a fake node \"runs\" (none is started) before it succeeds")
	flag.Parse()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.Fatal(err)
	}
	config.QPS, config.Burst = 200, 400
	client := kubernetes.NewForConfigOrDie(config)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	names := make([]string, *nodes)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", *prefix, i)
	}
	fake := map[string]bool{}
	for i := range *fakeNodes {
		name := fmt.Sprintf("%sfake-%d", *prefix, i)
		names = append(names, name)
		fake[name] = true
	}
	agent := newAgent(client, names, *dir, *apiPort, fake, *fakeRunTime)
	if agent.images, err = loadImageTable(*images, *imageFiles); err != nil {
		klog.Fatal(err)
	}
	if *bridge != "" {
		if agent.network, err = newPodNetwork(*bridge, *clusterCIDR, *clusterDNS, *netnsPrefix, *cniBin, *dir); err != nil {
			klog.Fatal(err)
		}
	}
	for _, name := range names {
		if err := agent.register(ctx, name, fake[name], int32(*port)); err != nil {
			klog.Fatalf("registering node %s: %v", name, err)
		}
	}
	go agent.heartbeat(ctx, names)
	go func() {
		if err := serveKubeletAPI(ctx, agent, *port, *pki); err != nil {
			klog.Fatalf("kubelet API: %v", err)
		}
	}()
	agent.runPods(ctx)
	agent.stopAll()
}

// register creates or refreshes a node as a kubelet does at start: capacity, addresses, the kubelet endpoint. A fake
// node is marked as kwok marks its nodes (label type=kwok, annotation and NoSchedule taint kwok.x-k8s.io/node=fake):
// only pods that tolerate the taint land there, so a cluster runs real and fake pods side by side.
func (a *agent) register(ctx context.Context, name string, fake bool, port int32) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
			"node.kubernetes.io/instance-type": "testcluster",
		}},
	}
	if fake {
		node.Labels["type"] = "kwok"
		node.Annotations = map[string]string{fakeNodeKey: "fake"}
		node.Spec.Taints = []corev1.Taint{{Key: fakeNodeKey, Value: "fake", Effect: corev1.TaintEffectNoSchedule}}
	}
	_, err := a.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return a.writeNodeStatus(ctx, name, port)
}

// writeNodeStatus posts the node's status, again on a conflict with the controllers that also write it.
func (a *agent) writeNodeStatus(ctx context.Context, name string, port int32) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := a.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return a.postNodeStatus(ctx, node, port)
	})
}

func (a *agent) postNodeStatus(ctx context.Context, node *corev1.Node, port int32) error {
	name := node.Name
	now := metav1.Now()
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("64"),
		corev1.ResourceMemory:           resource.MustParse("256Gi"),
		corev1.ResourcePods:             resource.MustParse("1000"),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Ti"),
		"nvidia.com/gpu":                resource.MustParse("8"),
	}
	if port != 0 {
		node.Status.DaemonEndpoints.KubeletEndpoint.Port = port
	}
	node.Status.Capacity = capacity
	node.Status.Allocatable = capacity
	node.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: name}}
	node.Status.NodeInfo = corev1.NodeSystemInfo{
		KubeletVersion: "v1.36.3", OperatingSystem: "linux", Architecture: "amd64",
		ContainerRuntimeVersion: "testcluster://1", OSImage: "camel-kubeflow-trainer testcluster node agent",
	}
	node.Status.Conditions = []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "the node agent is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory",
			LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure",
			LastHeartbeatTime: now, LastTransitionTime: now},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID",
			LastHeartbeatTime: now, LastTransitionTime: now},
	}
	_, err := a.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	return err
}

// heartbeat renews each node's lease every 10 s and its status every minute, as a kubelet does, so the node
// lifecycle controller never takes the nodes for lost.
func (a *agent) heartbeat(ctx context.Context, names []string) {
	leases := a.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for beat := 0; ; beat++ {
		for _, name := range names {
			now := metav1.NewMicroTime(time.Now())
			lease, err := leases.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				_, err = leases.Create(ctx, &coordinationv1.Lease{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name),
						LeaseDurationSeconds: ptr.To(int32(40)), RenewTime: &now},
				}, metav1.CreateOptions{})
			} else if err == nil {
				lease.Spec.RenewTime = &now
				_, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
			}
			if err != nil && ctx.Err() == nil {
				klog.Warningf("renewing the lease of %s: %v", name, err)
			}
			if beat%6 == 5 {
				if err := a.writeNodeStatus(ctx, name, 0); err != nil && ctx.Err() == nil {
					klog.Warningf("posting the status of %s: %v", name, err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// fakeNodeKey is the annotation and taint key kwok gives its fake nodes.
const fakeNodeKey = "kwok.x-k8s.io/node"

func isOurNode(names []string, node string) bool {
	for _, n := range names {
		if n == node {
			return true
		}
	}
	return false
}

// shortID is a container ID's printable tail.
func shortID(uid string) string {
	return strings.ReplaceAll(uid, "-", "")[:12]
}
