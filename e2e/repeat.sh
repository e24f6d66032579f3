#!/usr/bin/env bash
# The flake budget: runs the end-to-end suite N times in a row against one control plane and prints, per test, how
# many runs it passed and failed. A test that fails once in ten is a bug in the product or in the test.
#   e2e/repeat.sh [N]            (N: 10; -Dit.test=LaunchersIT and other failsafe options may follow N)
# Each run's reports stay in e2e/target/repeat/run-<i>/; the control plane is taken down on any exit.
set -euo pipefail
runs=${1:-10}
shift || true
cd "$(dirname "$0")/.."
log=e2e/target/repeat
rm -rf "$log" && mkdir -p "$log"
# everything the suite runs (the component, the packaged routes app), without running a test or the control plane
./mvnw -B -ntp -q install -DskipTests
# the Kubeflow SDK's virtual environment the suite's SDK test uses, as the build makes it
./mvnw -B -ntp -q -pl e2e exec:exec@kubeflow-sdk-venv
trap 'bash testcluster/down.sh' EXIT
bash testcluster/up.sh
for i in $(seq 1 "$runs"); do
  started=$(date +%s)
  rm -rf e2e/target/failsafe-reports
  if ./mvnw -B -ntp -pl e2e test-compile failsafe:integration-test "$@" > "$log/run-$i.log" 2>&1; then
    status=ran
  else
    status="failed to run (see $log/run-$i.log)"
  fi
  cp -r e2e/target/failsafe-reports "$log/run-$i" 2>/dev/null || mkdir -p "$log/run-$i"
  echo "run $i of $runs: $status in $(( $(date +%s) - started )) s"
done
python3 - "$log" "$runs" <<'EOF'
import glob, sys, xml.etree.ElementTree as ET
from collections import defaultdict
folder, runs = sys.argv[1], int(sys.argv[2])
passed, failed = defaultdict(int), defaultdict(int)
for report in glob.glob(folder + "/run-*/TEST-*.xml"):
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("classname").rsplit(".", 1)[-1] + "." + case.get("name")
        if case.find("skipped") is not None:
            continue
        bad = case.find("failure") is not None or case.find("error") is not None
        (failed if bad else passed)[name] += 1
names = sorted(set(passed) | set(failed))
for name in names:
    mark = "  " if failed[name] == 0 and passed[name] == runs else "!!"
    print(f"{mark} {name}: {passed[name]} passed, {failed[name]} failed")
total_failed = sum(failed.values())
green = sum(1 for i in range(1, runs + 1)
            if glob.glob(f"{folder}/run-{i}/TEST-*.xml")
            and not any(c.find("failure") is not None or c.find("error") is not None
                        for r in glob.glob(f"{folder}/run-{i}/TEST-*.xml") for c in ET.parse(r).getroot().iter("testcase")))
print(f"{len(names)} tests, {runs} runs: {green} runs green")
print(f"{sum(passed.values())} passed, {total_failed} failed")
sys.exit(1 if total_failed or green != runs else 0)
EOF
