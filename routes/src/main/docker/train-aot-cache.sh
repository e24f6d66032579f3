#!/usr/bin/env bash
# Trains JDK 25's AOT cache for the routes app packaged with -Pfast-start: starts the app once on the local sandbox
# with the JVM options it will start with, stops it once it has started, and waits for the cache the JVM assembles
# then. A cache trained on the local sandbox serves a start on a cluster too (the classes of Camel, Quarkus, the
# Kubernetes client and the routes are the same; those only the sandbox loads lie unused).
#
#   train-aot-cache.sh <java> <runner jar> <cache to write> [JVM options, the same as the start's]
#
# Dockerfile.fast-start runs it while the image is built; run it by hand after every rebuild of the jar.
set -euo pipefail
java=$1 jar=$2 cache=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# in a folder of its own: the app keeps its state (inbox, outbox, locks, token) under the working directory
(cd "$work" && TRAINER_CLUSTER=sandbox QUARKUS_HTTP_PORT=0 exec "$java" "$@" -XX:AOTCacheOutput="$cache" \
    -jar "$jar" >"$work/training.log" 2>&1) &
app=$!
for _ in $(seq 1 1200); do
    grep -q ' started in ' "$work/training.log" && break
    if ! kill -0 "$app" 2>/dev/null; then
        cat "$work/training.log" >&2
        echo "train-aot-cache: the app exited before it started" >&2
        exit 1
    fi
    sleep 0.1
done
grep -q ' started in ' "$work/training.log" || { echo "train-aot-cache: no start in 2 minutes" >&2; exit 1; }
# a graceful stop: the JVM then hands its training to a JVM of its own, which writes the cache and says so
kill -TERM "$app"
wait "$app" || true
for _ in $(seq 1 1800); do
    grep -q 'AOTCache creation is complete' "$work/training.log" && exit 0
    sleep 0.1
done
cat "$work/training.log" >&2
echo "train-aot-cache: no cache written in 3 minutes" >&2
exit 1
