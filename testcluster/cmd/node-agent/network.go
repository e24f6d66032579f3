package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/containernetworking/cni/libcni"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podNetwork is how the node agent gives each pod a network as a kubelet's container runtime does: a network
// namespace of the pod's own, set up by the CNI bridge plugin with host-local addresses from the pod's node's
// podCIDR, every pod on one bridge that the test cluster made, and the pod's cluster DNS.
type podNetwork struct {
	// bridge is the Linux bridge up.sh made; the pods' veth ends join it.
	bridge string
	// subnet is the bridge's network (the cluster CIDR): a pod reaches every other pod on it, nothing else.
	subnet *net.IPNet
	// dns is the address CoreDNS serves on (the kubelet's clusterDNS).
	dns string
	// namespacePrefix names this cluster's network namespaces, so down.sh removes exactly them.
	namespacePrefix string
	cni             *libcni.CNIConfig
	ipamDir         string
}

const clusterDomain = "cluster.local"

func newPodNetwork(bridge, clusterCIDR, dns, namespacePrefix, cniBin, stateDir string) (*podNetwork, error) {
	_, subnet, err := net.ParseCIDR(clusterCIDR)
	if err != nil {
		return nil, fmt.Errorf("--cluster-cidr: %w", err)
	}
	return &podNetwork{bridge: bridge, subnet: subnet, dns: dns, namespacePrefix: namespacePrefix,
		cni: libcni.NewCNIConfig([]string{cniBin}, nil), ipamDir: filepath.Join(stateDir, "cni")}, nil
}

func (n *podNetwork) namespace(pod *corev1.Pod) string {
	return n.namespacePrefix + shortID(string(pod.UID))
}

// NamespacePath is where a container joins its pod's network.
func (n *podNetwork) namespacePath(pod *corev1.Pod) string {
	return "/run/netns/" + n.namespace(pod)
}

// conf is the network of one node: the bridge's subnet, addresses handed out from the node's podCIDR alone
// (from its 16th address on: the first ones of the cluster CIDR hold the bridge's and the DNS address).
func (n *podNetwork) conf(podCIDR string) (*libcni.NetworkConfigList, error) {
	_, nodeNet, err := net.ParseCIDR(podCIDR)
	if err != nil {
		return nil, fmt.Errorf("node podCIDR %q: %w", podCIDR, err)
	}
	first := append(net.IP{}, nodeNet.IP.To4()...)
	first[3] += 16
	last := append(net.IP{}, nodeNet.IP.To4()...)
	ones, _ := nodeNet.Mask.Size()
	size := uint32(1) << (32 - ones)
	end := (uint32(last[0])<<24 | uint32(last[1])<<16 | uint32(last[2])<<8 | uint32(last[3])) + size - 2
	last = net.IPv4(byte(end>>24), byte(end>>16), byte(end>>8), byte(end)).To4()
	body, err := json.Marshal(map[string]any{
		"cniVersion": "1.0.0", "name": "testcluster",
		"plugins": []any{map[string]any{
			"type": "bridge", "bridge": n.bridge, "isGateway": false, "ipMasq": false,
			"ipam": map[string]any{"type": "host-local", "dataDir": n.ipamDir,
				"ranges": [][]map[string]string{{{"subnet": n.subnet.String(), "rangeStart": first.String(),
					"rangeEnd": last.String()}}}},
		}},
	})
	if err != nil {
		return nil, err
	}
	return libcni.ConfListFromBytes(body)
}

func (n *podNetwork) runtimeConf(pod *corev1.Pod) *libcni.RuntimeConf {
	return &libcni.RuntimeConf{ContainerID: string(pod.UID), NetNS: n.namespacePath(pod), IfName: "eth0",
		// as containerd passes them: plugins that know no Kubernetes arguments are told to ignore them
		Args: [][2]string{{"IgnoreUnknown", "1"}, {"K8S_POD_NAMESPACE", pod.Namespace}, {"K8S_POD_NAME", pod.Name},
			{"K8S_POD_UID", string(pod.UID)}}}
}

// setUp makes the pod's network namespace with its loopback up and one address on the bridge, and says the address.
func (n *podNetwork) setUp(ctx context.Context, pod *corev1.Pod, podCIDR string) (string, error) {
	name := n.namespace(pod)
	if _, err := os.Stat(n.namespacePath(pod)); err != nil {
		if out, err := exec.CommandContext(ctx, "ip", "netns", "add", name).CombinedOutput(); err != nil {
			return "", fmt.Errorf("ip netns add %s: %v: %s", name, err, out)
		}
	}
	if out, err := exec.CommandContext(ctx, "ip", "-n", name, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return "", fmt.Errorf("loopback of %s: %v: %s", name, err, out)
	}
	conf, err := n.conf(podCIDR)
	if err != nil {
		return "", err
	}
	added, err := n.cni.AddNetworkList(ctx, conf, n.runtimeConf(pod))
	if err != nil {
		return "", err
	}
	result, err := types100.NewResultFromResult(added)
	if err != nil {
		return "", err
	}
	if len(result.IPs) == 0 {
		return "", fmt.Errorf("the CNI bridge plugin gave pod %s no address", describe(pod))
	}
	return result.IPs[0].Address.IP.String(), nil
}

// tearDown gives the address back and removes the namespace, as a runtime does when it stops the pod's sandbox.
func (n *podNetwork) tearDown(pod *corev1.Pod, podCIDR string) error {
	var errs []string
	// what still runs in the namespace (an sshd session's orted that left the container's process group) goes
	// with it, as the processes of a sandbox do
	if out, err := exec.Command("ip", "netns", "pids", n.namespace(pod)).Output(); err == nil {
		for _, pid := range strings.Fields(string(out)) {
			if id, err := strconv.Atoi(pid); err == nil {
				_ = syscall.Kill(id, syscall.SIGKILL)
			}
		}
	}
	if conf, err := n.conf(podCIDR); err == nil {
		if err := n.cni.DelNetworkList(context.Background(), conf, n.runtimeConf(pod)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if out, err := exec.Command("ip", "netns", "delete", n.namespace(pod)).CombinedOutput(); err != nil &&
		!strings.Contains(string(out), "No such file") {
		errs = append(errs, fmt.Sprintf("ip netns delete: %v: %s", err, out))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// podFiles writes the files the kubelet mounts into every container of a pod on the pod network: /etc/hosts
// (the kubelet's managed hosts file), /etc/hostname and /etc/resolv.conf (as its DNS policy says).
func (n *podNetwork) podFiles(pod *corev1.Pod, dir, podIP, hostname string) ([]mount, error) {
	hosts := "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
		"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"
	if pod.Spec.Subdomain != "" {
		hosts += fmt.Sprintf("%s\t%s.%s.%s.svc.%s\t%s\n", podIP, hostname, pod.Spec.Subdomain, pod.Namespace,
			clusterDomain, hostname)
	} else {
		hosts += fmt.Sprintf("%s\t%s\n", podIP, hostname)
	}
	files := map[string]string{"/etc/hosts": hosts, "/etc/hostname": hostname + "\n"}
	if resolv, ok := n.resolvConf(pod); ok {
		files["/etc/resolv.conf"] = resolv
	}
	var mounts []mount
	for _, target := range []string{"/etc/hosts", "/etc/hostname", "/etc/resolv.conf"} {
		content, ok := files[target]
		if !ok {
			continue
		}
		source := filepath.Join(dir, "etc", filepath.Base(target))
		if err := ensureDir(filepath.Dir(source)); err != nil {
			return nil, err
		}
		if err := os.WriteFile(source, []byte(content), 0o644); err != nil {
			return nil, err
		}
		mounts = append(mounts, mount{Source: source, Target: target})
	}
	return mounts, nil
}

// resolvConf is the kubelet's: ClusterFirst searches the pod's namespace, then the cluster's domains, with ndots 5;
// Default keeps the node's file; None takes the pod's dnsConfig alone; dnsConfig is added to the others.
func (n *podNetwork) resolvConf(pod *corev1.Pod) (string, bool) {
	var servers, searches, options []string
	switch pod.Spec.DNSPolicy {
	case corev1.DNSDefault:
		return "", false
	case corev1.DNSNone:
	default:
		servers = []string{n.dns}
		searches = []string{pod.Namespace + ".svc." + clusterDomain, "svc." + clusterDomain, clusterDomain}
		options = []string{"ndots:5"}
	}
	if c := pod.Spec.DNSConfig; c != nil {
		servers = append(servers, c.Nameservers...)
		searches = append(searches, c.Searches...)
		for _, o := range c.Options {
			if o.Value != nil {
				options = append(options, o.Name+":"+*o.Value)
			} else {
				options = append(options, o.Name)
			}
		}
	}
	var b strings.Builder
	if len(searches) > 0 {
		b.WriteString("search " + strings.Join(searches, " ") + "\n")
	}
	for _, s := range servers {
		b.WriteString("nameserver " + s + "\n")
	}
	if len(options) > 0 {
		b.WriteString("options " + strings.Join(options, " ") + "\n")
	}
	return b.String(), true
}

// nodePodCIDR is the range the controller manager's node IPAM gave the node.
func (a *agent) nodePodCIDR(ctx context.Context, name string) (string, error) {
	node, err := a.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if node.Spec.PodCIDR == "" {
		return "", fmt.Errorf("node %s has no podCIDR yet", name)
	}
	return node.Spec.PodCIDR, nil
}
