"""The Kubeflow Python SDK's log read, timed: TrainerClient.get_job_logs, unmodified, against the bench's target
(KUBECONFIG). Arguments: namespace, job name, follow (true/false), steps (comma-separated, e.g. node-0,node-1).
Reads each step in turn, as the SDK reads one step per call, and prints one JSON object: seconds and lines.
Run by the bench (LogBench) with the Python -Dbench.sdk.python names: see bench/sdk/README.md."""
import json
import os
import sys
import time

from kubeflow.common.types import KubernetesBackendConfig
from kubeflow.trainer import TrainerClient

namespace, name, follow, steps = sys.argv[1], sys.argv[2], sys.argv[3] == "true", sys.argv[4].split(",")
# the kubeconfig named outright, as sdk_check.py does: else a machine with /var/run/secrets/kubernetes.io is a pod
client = TrainerClient(backend_config=KubernetesBackendConfig(namespace=namespace,
                                                              config_file=os.environ["KUBECONFIG"]))
list(client.get_job_logs(name, follow=follow, step=steps[0]))  # warm-up: imports, connections
started = time.monotonic()
lines = 0
for step in steps:
    for _ in client.get_job_logs(name, follow=follow, step=step):
        lines += 1
print(json.dumps({"seconds": time.monotonic() - started, "lines": lines}))
