#!/usr/bin/env bash
# Starts the local control plane the end-to-end suite runs on: etcd, kube-apiserver, kube-controller-manager and
# kube-scheduler of Kubernetes 1.36, the Kubeflow Trainer v2.3.0 controller manager with its webhooks, the JobSet
# v0.12.0 controller, and the node agent that runs the scheduled pods on this machine. Every piece is built from
# the Go modules that go.mod pins (cached by their content; nothing is downloaded but modules), the Trainer's own
# install manifests are applied as a user applies them, and the script returns once a TrainJob can run.
#
# Writes .state/kubeconfig (cluster-admin, client certificate). Stop with down.sh.
# Environment: TESTCLUSTER_STATE (.state beside this script: where the cluster keeps its data, logs and kubeconfig;
# a second cluster at the same time needs its own, and its own TESTCLUSTER_PORT_BASE; down.sh takes the same),
# TESTCLUSTER_PORT_BASE (26400), TESTCLUSTER_NODES (2), TESTCLUSTER_CACHE (~/.cache/...),
# TESTCLUSTER_FAKE_NODES (0: fake nodes beside the real ones, tainted and labelled as kwok's, whose containers are not
# run but succeed after TESTCLUSTER_FAKE_RUN_TIME, 2s), TESTCLUSTER_KUEUE (unset: none; 1: Kueue's controller manager
# and webhooks too, installed from its release manifests with its TrainJob integration on).
# Runs as root: pods get network namespaces on a bridge, and what the images hold comes from Debian's packages.
set -euo pipefail

# Pieces built from Go modules outside go.mod (their Kubernetes libraries are newer than the control plane's),
# each from its own module at a pinned version, its go.sum checked by the go command.
coredns_version=v1.15.0
cni_plugins_version=v1.10.0
kueue_version=v0.17.0
# What the runtimes' images hold, from Debian: torchrun (python3-torch: CPU, gloo), mpirun (openmpi-bin),
# sshd for the MPI node pods, mpi4py for rank code, xgboost (its tracker and collective), pip for the SDK's
# package listing.
image_packages="python3-torch openmpi-bin openssh-server openssh-client python3-mpi4py python3-xgboost
  python3-pip python-is-python3 iproute2"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# absolute: up.sh changes directory before it hands some of these paths on
state="$(realpath -m "${TESTCLUSTER_STATE:-$here/.state}")"
base="${TESTCLUSTER_PORT_BASE:-26400}"
nodes="${TESTCLUSTER_NODES:-2}" fake_nodes="${TESTCLUSTER_FAKE_NODES:-0}"
kueue="${TESTCLUSTER_KUEUE:-}"
if [ -n "$kueue" ] && [ "$kueue" != 1 ]; then
  echo "TESTCLUSTER_KUEUE is 1 (Kueue too) or unset" >&2; exit 2
fi
for number in "$base" "$nodes" "$fake_nodes"; do
  [[ "$number" =~ ^[0-9]{1,5}$ ]] || {
    echo "TESTCLUSTER_PORT_BASE, TESTCLUSTER_NODES and TESTCLUSTER_FAKE_NODES take a number" >&2; exit 2; }
done
# The pod network: a bridge and a /20 of 10.0.0.0/8 per port base (each node a /24 of it), so clusters whose bases
# are 16 or more apart (their ports are 60 apart at least) never share one.
bridge="tcbr$base" netns_prefix="tc$base-"
block=$((base / 16))
net="10.$((block / 16)).$((block % 16 * 16))"
if [ $((10#$nodes + 10#$fake_nodes)) -gt 16 ]; then
  echo "TESTCLUSTER_NODES and TESTCLUSTER_FAKE_NODES are at most 16 together: each node takes a /24 of the" \
    "cluster's /20" >&2
  exit 2
fi
if [ -n "${TESTCLUSTER_FAKE_RUN_TIME:-}" ] && [ "$((10#$fake_nodes))" = 0 ]; then
  echo "TESTCLUSTER_FAKE_RUN_TIME is the run time of fake nodes: set TESTCLUSTER_FAKE_NODES too (every node was" \
    "fake before; the real ones now stay real)" >&2
  exit 2
fi
if [ $((block / 16)) = 96 ]; then
  echo "TESTCLUSTER_PORT_BASE $base would put the pods in 10.96.0.0/16, the Services' range: take another" >&2
  exit 2
fi
cluster_cidr="$net.0/20" bridge_ip="$net.1" cluster_dns="$net.10" dns_domain=cluster.local
etcd_port=$((base + 1)) etcd_peer_port=$((base + 2)) api_port=$((base + 43))
trainer_webhook_port=$((base + 10)) jobset_webhook_port=$((base + 12))
kueue_webhook_port=$((base + 14))
cm_port=$((base + 57)) scheduler_port=$((base + 59)) kubelet_port=$((base + 50))
started=$(date +%s)

say() { printf '[testcluster %3ss] %s\n' $(($(date +%s) - started)) "$*" >&2; }

if [ -f "$state/pids" ]; then
  say "a cluster is already up (or was not stopped): running down.sh first"
  "$here/down.sh"
fi

# --- build: one binary per piece, kept under a key of everything that goes into it ---------------------------
cd "$here"
# The version a released Kubernetes binary reports (its build sets it as hack/lib/version.sh does): without it the
# API server says v0.0.0-master, which clients that read the server's version (Kueue) cannot parse.
k8s_version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
[[ "$k8s_version" =~ ^v([0-9]+)\.([0-9]+)\. ]] || { echo "k8s.io/kubernetes $k8s_version is not vX.Y.Z" >&2; exit 1; }
version_flags=""
for package in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  version_flags+=" -X $package.gitVersion=$k8s_version -X $package.gitMajor=${BASH_REMATCH[1]}"
  version_flags+=" -X $package.gitMinor=${BASH_REMATCH[2]} -X $package.gitTreeState=clean"
done
key=$( (go version; echo "$version_flags"; cat go.mod go.sum; find cmd -type f | sort | xargs cat) | sha256sum \
  | cut -c1-16)
cache="${TESTCLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/camel-kubeflow-trainer/testcluster}"
bin="$cache/$key/bin"
if [ ! -x "$bin/node-agent" ]; then
  say "building the control plane into $bin (first time for this go.mod: several minutes)"
  # a build of its own per run: two runs building at once each move a whole set into place
  building="$cache/$key.tmp.$$"
  # the binaries run as whoever runs this: nobody else may write where they are kept
  mkdir -p -m 700 "$cache" && rm -rf "$building" && mkdir -p "$building"
  go build -ldflags "$version_flags" -o "$building/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager \
    sigs.k8s.io/jobset ./cmd/etcd ./cmd/pki ./cmd/localize ./cmd/managerconfig ./cmd/node-agent
  mkdir -p "$cache/$key" && { mv -T "$building" "$bin" 2>/dev/null || rm -rf "$building"; }
  say "built"
fi

missing=$(for p in $image_packages; do
  [ "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || echo "$p"; done | xargs)
if [ -n "$missing" ]; then
  say "installing what the runtimes' images hold, from Debian: $missing"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
tools="$cache/tools-coredns-$coredns_version-cni-$cni_plugins_version-$(go env GOVERSION)"
if [ ! -x "$tools/coredns" ] || [ ! -x "$tools/bridge" ]; then
  say "building CoreDNS $coredns_version and the CNI plugins $cni_plugins_version into $tools"
  building="$tools.tmp.$$" && rm -rf "$building" && mkdir -p "$building"
  (cd / && GOBIN="$building" GOFLAGS=-mod=mod go install "github.com/coredns/coredns@$coredns_version" \
    && GOBIN="$building" GOFLAGS=-mod=mod go install \
      "github.com/containernetworking/plugins/plugins/main/bridge@$cni_plugins_version" \
      "github.com/containernetworking/plugins/plugins/ipam/host-local@$cni_plugins_version")
  mv -T "$building" "$tools" 2>/dev/null || rm -rf "$building"
fi
kueue_bin="$cache/kueue-$kueue_version-$(go env GOVERSION)"
if [ -n "$kueue" ] && [ ! -x "$kueue_bin/kueue" ]; then
  say "building Kueue $kueue_version into $kueue_bin"
  building="$kueue_bin.tmp.$$" && rm -rf "$building" && mkdir -p "$building"
  (cd / && GOBIN="$building" GOFLAGS=-mod=mod go install "sigs.k8s.io/kueue/cmd/kueue@$kueue_version")
  mv -T "$building" "$kueue_bin" 2>/dev/null || rm -rf "$building"
fi

# --- state: certificates, kubeconfigs, data and logs of this run -----------------------------------------------
rm -rf "$state" && mkdir -p "$state/logs" "$state/data" && chmod 700 "$state"
pki="$state/pki"
"$bin/pki" "$state" "https://127.0.0.1:$api_port"
cp "$state/admin.kubeconfig" "$state/kubeconfig"
: > "$state/pids"

start() { # name, then the command; its output goes to .state/logs/<name>.log
  local name="$1"; shift
  setsid "$@" > "$state/logs/$name.log" 2>&1 < /dev/null &
  echo "$! $name" >> "$state/pids"
}
wait_for() { # what, seconds, then a command that succeeds once it is there
  local what="$1" limit="$2"; shift 2
  local deadline=$(($(date +%s) + limit))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      say "$what did not come up in ${limit}s; the last lines of its logs:"
      tail -n 30 "$state"/logs/*.log >&2 || true
      "$here/down.sh" || true
      exit 1
    fi
    sleep 0.5
  done
}
kubectl_admin() { kubectl --kubeconfig "$state/kubeconfig" "$@"; }

start etcd "$bin/etcd" --name testcluster --data-dir "$state/data/etcd" \
  --listen-client-urls "https://127.0.0.1:$etcd_port" --advertise-client-urls "https://127.0.0.1:$etcd_port" \
  --listen-peer-urls "https://127.0.0.1:$etcd_peer_port" \
  --initial-advertise-peer-urls "https://127.0.0.1:$etcd_peer_port" \
  --initial-cluster "testcluster=https://127.0.0.1:$etcd_peer_port" \
  --client-cert-auth --trusted-ca-file "$pki/ca.crt" --cert-file "$pki/etcd-server.crt" --key-file "$pki/etcd-server.key" \
  --peer-client-cert-auth --peer-trusted-ca-file "$pki/ca.crt" \
  --peer-cert-file "$pki/etcd-server.crt" --peer-key-file "$pki/etcd-server.key" \
  --listen-metrics-urls "" --unsafe-no-fsync --quota-backend-bytes 4294967296

# Every write is audited (who, what, where; no bodies), so a test can count the writes a client made; so is every
# request of the admin user (the tests' clients, the bench's harness) and of the bench's plain user (the
# ServiceAccount default/bench-user its measured clients act as), so the bench counts a client's reads too. The log is
# never rotated (its default rotates at 100 MB): a reader's mark is an offset into the one file.
cat > "$state/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: Metadata
  users: ["kubernetes-admin", "system:serviceaccount:default:bench-user"]
- level: None
EOF
start kube-apiserver "$bin/kube-apiserver" \
  --audit-policy-file "$state/audit-policy.yaml" --audit-log-path "$state/logs/audit.log" --audit-log-format json \
  --audit-log-mode blocking --audit-log-maxsize 1000000 \
  --etcd-servers "https://127.0.0.1:$etcd_port" --etcd-cafile "$pki/ca.crt" \
  --etcd-certfile "$pki/apiserver-etcd-client.crt" --etcd-keyfile "$pki/apiserver-etcd-client.key" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
  --tls-cert-file "$pki/kube-apiserver.crt" --tls-private-key-file "$pki/kube-apiserver.key" \
  --client-ca-file "$pki/ca.crt" --authorization-mode Node,RBAC --anonymous-auth=false \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --service-cluster-ip-range 10.96.0.0/16 --allow-privileged \
  --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority "$pki/ca.crt" --kubelet-preferred-address-types InternalIP \
  --cert-dir "$state/data/apiserver" --profiling=false --event-ttl 1h
wait_for "kube-apiserver" 180 kubectl_admin get --raw /readyz
say "kube-apiserver ready on https://127.0.0.1:$api_port"

start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$state/kube-controller-manager.kubeconfig" \
  --authentication-kubeconfig "$state/kube-controller-manager.kubeconfig" \
  --authorization-kubeconfig "$state/kube-controller-manager.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$cm_port" --cert-dir "$state/data/kube-controller-manager" \
  --leader-elect=false --use-service-account-credentials \
  --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
  --cluster-signing-cert-file "$pki/csr-signer.crt" --cluster-signing-key-file "$pki/csr-signer.key" \
  --controllers '*,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller' \
  --allocate-node-cidrs --cluster-cidr "$cluster_cidr" --node-cidr-mask-size 24 \
  --service-cluster-ip-range 10.96.0.0/16 \
  --concurrent-job-syncs 20 --concurrent-gc-syncs 40 --kube-api-qps 200 --kube-api-burst 400
start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$state/kube-scheduler.kubeconfig" \
  --authentication-kubeconfig "$state/kube-scheduler.kubeconfig" \
  --authorization-kubeconfig "$state/kube-scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$scheduler_port" --leader-elect=false

# --- the Trainer as a user installs it: kustomize of its manifests, JobSet's release included ---------------------
trainer_dir=$(go list -m -f '{{.Dir}}' github.com/kubeflow/trainer/v2)
jobset_dir=$(go list -m -f '{{.Dir}}' sigs.k8s.io/jobset)
manifests="$state/manifests"
cp -r "$trainer_dir/manifests" "$manifests" && chmod -R u+w "$manifests"
# The Trainer's kustomization pulls JobSet's release manifests from a URL; they are JobSet's config/default.
kubectl kustomize "$jobset_dir/config/default" > "$manifests/third-party/jobset/manifests.yaml"
sed -i 's#https://github.com/kubernetes-sigs/jobset/releases/download/v0.12.0/manifests.yaml#manifests.yaml#' \
  "$manifests/third-party/jobset/kustomization.yaml"
kubectl kustomize "$manifests/overlays/manager" 2>/dev/null \
  | "$bin/localize" "$pki/ca.crt" "kubeflow-trainer-controller-manager=$trainer_webhook_port" \
      "jobset-webhook-service=$jobset_webhook_port" > "$state/install.yaml"
kubectl_admin apply --server-side -f "$state/install.yaml" > "$state/logs/install.log"
wait_for "the CRDs" 180 kubectl_admin wait --for condition=Established --timeout 1s \
  crd/trainjobs.trainer.kubeflow.org crd/clustertrainingruntimes.trainer.kubeflow.org \
  crd/trainingruntimes.trainer.kubeflow.org crd/jobsets.jobset.x-k8s.io

# The managers' configurations are the release's ConfigMap files (controller concurrency, client QPS and burst, as a
# user's install runs them) with only what a process beside the API server needs: loopback webhook ports with the
# cluster's certificate, no leader election, no metrics or probe servers. managerconfig prints each change.
certs="$state/webhook-certs"
mkdir -p "$certs/k8s-webhook-server/serving-certs"
cp "$pki/loopback-serving.crt" "$certs/k8s-webhook-server/serving-certs/tls.crt"
cp "$pki/loopback-serving.key" "$certs/k8s-webhook-server/serving-certs/tls.key"
loopback=(health.healthProbeBindAddress='"0"' metrics.bindAddress='"0"' webhook.host=127.0.0.1
  leaderElection.leaderElect=false)
"$bin/managerconfig" "$trainer_dir/manifests/base/manager/controller_manager_config.yaml" "${loopback[@]}" \
  webhook.port="$trainer_webhook_port" certManagement.enable=false > "$state/trainer-config.yaml"
"$bin/managerconfig" "$jobset_dir/config/components/manager/controller_manager_config.yaml" "${loopback[@]}" \
  webhook.port="$jobset_webhook_port" webhook.certDir="$certs/k8s-webhook-server/serving-certs" \
  internalCertManagement.enable=false > "$state/jobset-config.yaml"
# controller-runtime keeps webhook certificates under the temporary directory unless told otherwise.
TMPDIR="$certs" KUBECONFIG="$state/trainer-controller-manager.kubeconfig" \
  start trainer-controller-manager "$bin/trainer-controller-manager" --config "$state/trainer-config.yaml"
KUBECONFIG="$state/jobset-controller-manager.kubeconfig" \
  start jobset-controller-manager "$bin/jobset" --config "$state/jobset-config.yaml"

# --- Kueue, when asked: its release manifests (config/default) as a user applies them, and its manager as a process
if [ -n "$kueue" ]; then
  kueue_dir=$(cd / && GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kueue@$kueue_version" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
  # its visibility API (pending workloads) is an aggregated APIService, which only a Service in front of a pod
  # serves: localize leaves it out, and its feature gate (VisibilityOnDemand, beta) is off
  kubectl kustomize "$kueue_dir/config/default" \
    | "$bin/localize" "$pki/ca.crt" "kueue-webhook-service=$kueue_webhook_port" > "$state/kueue-install.yaml"
  kubectl_admin apply --server-side -f "$state/kueue-install.yaml" > "$state/logs/kueue-install.log"
  wait_for "Kueue's CRDs" 180 kubectl_admin wait --for condition=Established --timeout 1s \
    crd/clusterqueues.kueue.x-k8s.io crd/localqueues.kueue.x-k8s.io crd/workloads.kueue.x-k8s.io \
    crd/resourceflavors.kueue.x-k8s.io crd/workloadpriorityclasses.kueue.x-k8s.io
  # Kueue's integrations: the release's, less those whose CRDs this cluster does not serve (Kubeflow's v1 training
  # operator, Ray, AppWrapper, LeaderWorkerSet), as a user's install lists only what it runs: MultiKueue watches each
  # enabled kind on every worker, and a kind a worker lacks keeps that worker from connecting (MultiKueueIT)
  "$bin/managerconfig" "$kueue_dir/config/components/manager/controller_manager_config.yaml" "${loopback[@]}" \
    webhook.port="$kueue_webhook_port" webhook.certDir="$certs/k8s-webhook-server/serving-certs" \
    internalCertManagement.enable=false \
    'integrations.frameworks=[batch/job, jobset.x-k8s.io/jobset, trainer.kubeflow.org/trainjob, pod, deployment, statefulset]' \
    > "$state/kueue-config.yaml"
  # Without its internal certificate management, Kueue reads a metrics certificate from where its Deployment would
  # mount one, /etc/kueue/metrics/certs (read even with the metrics server off): that path is made for it alone, in
  # a mount namespace of its own, over this machine's /etc
  kueue_etc="$state/kueue-etc"
  mkdir -p "$kueue_etc/upper/kueue/metrics/certs" "$kueue_etc/work"
  cp "$pki/loopback-serving.crt" "$kueue_etc/upper/kueue/metrics/certs/tls.crt"
  cp "$pki/loopback-serving.key" "$kueue_etc/upper/kueue/metrics/certs/tls.key"
  over_etc='mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc && shift && exec "$@"'
  KUBECONFIG="$state/kueue-controller-manager.kubeconfig" start kueue-controller-manager \
    unshare --mount --propagation private sh -c "$over_etc" sh "$kueue_etc" \
    "$kueue_bin/kueue" --config "$state/kueue-config.yaml" --feature-gates VisibilityOnDemand=false
fi

# --- the pod network and its DNS ------------------------------------------------------------------------------
# One bridge joins every pod's veth; it holds the network's first address and the DNS address, and there is no
# route or NAT from the pods to anything else (their one route is the bridge's /20).
for ns in $(ip netns list | awk '{print $1}' | grep "^$netns_prefix" || true); do
  ip netns pids "$ns" | xargs -r kill -KILL; ip netns delete "$ns"
done
ip link add "$bridge" type bridge 2>/dev/null || true
ip addr replace "$bridge_ip/20" dev "$bridge"
ip addr replace "$cluster_dns/20" dev "$bridge"
ip link set "$bridge" up
echo "$bridge $netns_prefix" > "$state/network"
# CoreDNS as kubeadm deploys it (its ClusterRole, its kubernetes plugin), serving on the cluster DNS address.
cat > "$state/coredns-rbac.yaml" <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- {apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{kind: ServiceAccount, name: coredns, namespace: kube-system}]
EOF
kubectl_admin apply -f "$state/coredns-rbac.yaml" > /dev/null
cat > "$state/Corefile" <<EOF
.:53 {
    bind $cluster_dns
    errors
    kubernetes $dns_domain in-addr.arpa ip6.arpa {
        kubeconfig $state/coredns.kubeconfig
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    cache 30
    loop
}
EOF
start coredns "$tools/coredns" -conf "$state/Corefile"
# ready once it answers for the API server's Service from the API server: its kubernetes plugin has synced
cat > "$state/dns-probe.py" <<'EOF'
import socket, struct, sys
name = b"".join(bytes([len(label)]) + label.encode() for label in "kubernetes.default.svc.cluster.local".split("."))
query = struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0) + name + b"\0" + struct.pack(">HH", 1, 1)
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    s.settimeout(1)
    s.sendto(query, (sys.argv[1], 53))
    answer = s.recv(512)
sys.exit(0 if answer[3] & 15 == 0 and struct.unpack(">H", answer[6:8])[0] > 0 else 1)
EOF
wait_for "CoreDNS" 120 python3 "$state/dns-probe.py" "$cluster_dns"

# Files of the images' layers (images.json) that up.sh makes from what Debian and PyPI installed.
mkdir -p "$state/image-files"
jax_key=$( (python3 --version; cat "$here/images/jax-requirements.txt") | sha256sum | cut -c1-16)
jax_venv="$cache/jax-$jax_key"
if [ ! -x "$jax_venv/bin/python" ]; then
  say "installing JAX for the JAX runtime's image from PyPI into $jax_venv"
  rm -rf "$jax_venv.tmp.$$" && python3 -m venv "$jax_venv.tmp.$$"
  "$jax_venv.tmp.$$/bin/pip" install --quiet --disable-pip-version-check -r "$here/images/jax-requirements.txt"
  mv -T "$jax_venv.tmp.$$" "$jax_venv" 2>/dev/null || rm -rf "$jax_venv.tmp.$$"
fi
ln -sfn "$jax_venv" "$state/image-files/jax-venv"
sed 's/^\( *\)for s in Std:$/\1for s in Std.__members__.values():/' \
  /usr/lib/python3/dist-packages/torch/distributed/elastic/multiprocessing/api.py \
  > "$state/image-files/torch-elastic-multiprocessing-api.py"

# A container whose pod names no workingDir runs where the agent runs (it cannot read an image's WORKDIR), and the
# Kubeflow SDK's jobs write their function's file there: in .state, not in this source folder.
mkdir -p "$state/workdir" && cd "$state/workdir"
start node-agent "$bin/node-agent" --kubeconfig "$state/node-agent.kubeconfig" --nodes "$nodes" \
  --port "$kubelet_port" --dir "$state/data/node-agent" --pki "$pki" \
  --pod-bridge "$bridge" --cluster-cidr "$cluster_cidr" --cluster-dns "$cluster_dns" --cni-bin "$tools" \
  --netns-prefix "$netns_prefix" --images "$here/images.json" --image-files "$state/image-files" \
  --apiserver-port "$api_port" --fake-nodes "$fake_nodes" --fake-run-time "${TESTCLUSTER_FAKE_RUN_TIME:-2s}"

# The Trainer's default runtimes, as the README of its release installs them (they are labelled for no webhook
# validation, so applying them says nothing of the webhooks: the dry-run TrainJob below does).
wait_for "the Trainer's runtimes" 180 kubectl_admin apply --server-side -k "$manifests/overlays/runtimes"
cat > "$state/probe-trainjob.yaml" <<EOF
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: probe, namespace: default}
spec: {runtimeRef: {name: torch-distributed}}
EOF
wait_for "the Trainer's webhooks" 180 kubectl_admin create --dry-run=server -f "$state/probe-trainjob.yaml"
wait_for "the default service account" 180 kubectl_admin get serviceaccount default -n default
wait_for "the nodes" 180 bash -c "[ \$(kubectl --kubeconfig '$state/kubeconfig' get nodes --no-headers 2>/dev/null \
  | grep -c ' Ready ') -ge $((nodes + fake_nodes)) ]"
cat > "$state/probe-jobset.yaml" <<EOF
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: probe, namespace: default}
spec:
  replicatedJobs:
  - name: probe
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: probe, image: probe, command: ["true"]}]
EOF
wait_for "JobSet's webhooks" 180 kubectl_admin create --dry-run=server -f "$state/probe-jobset.yaml"
if [ -n "$kueue" ]; then
  cat > "$state/probe-kueue.yaml" <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: probe}
EOF
  wait_for "Kueue's webhooks" 180 kubectl_admin create --dry-run=server -f "$state/probe-kueue.yaml"
fi
say "up: KUBECONFIG=$state/kubeconfig ($nodes nodes, $fake_nodes fake${kueue:+, Kueue $kueue_version})"
