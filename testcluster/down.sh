#!/usr/bin/env bash
# Stops what up.sh started (each piece is its own process group) and keeps .state for the logs (TESTCLUSTER_STATE:
# the cluster up.sh started with the same).
set -uo pipefail
state="$(realpath -m "${TESTCLUSTER_STATE:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.state}")"
# read once: a second down.sh at the same time finds nothing left to do
pids=$(cat "$state/pids" 2>/dev/null) && rm -f "$state/pids" || exit 0
# The node agent first, so the pods it runs stop with it; etcd last.
# only processes of this cluster: each one names this .state in its command line (a stale pid may be another's now)
ours() { { tr '\0' ' ' < "/proc/$1/cmdline"; } 2>/dev/null | grep -qF "$state/"; }
tac <<< "$pids" | while read -r pid name; do
  ours "$pid" && kill -TERM -- "-$pid" 2>/dev/null || true
done
for _ in $(seq 1 50); do
  alive=0
  while read -r pid name; do kill -0 "$pid" 2>/dev/null && alive=1; done <<< "$pids"
  [ "$alive" = 0 ] && break
  sleep 0.2
done
while read -r pid name; do ours "$pid" && kill -KILL -- "-$pid" 2>/dev/null || true; done <<< "$pids"
# The pod network: every pod's network namespace of this cluster (their veths go with them), then its bridge.
if read -r bridge prefix < "$state/network" 2>/dev/null; then
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix" || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns delete "$ns" 2>/dev/null
  done
  ip link delete "$bridge" 2>/dev/null || true
  rm -f "$state/network"
fi
