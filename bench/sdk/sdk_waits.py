"""The Kubeflow Python SDK's wait, timed: TrainerClient.wait_for_job_status(name) (its default: Complete, a get_job
every 2 s), unmodified, one thread per TrainJob, against the cluster of KUBECONFIG. Arguments: namespace, a file with
one TrainJob name per line. Prints "waiting" once every wait has started (the bench then lets the jobs run), and last
one JSON object: for each job the wall-clock time (seconds since the epoch) its wait returned.
Run by the bench (ClusterWaitBench) on the real control plane: see bench/sdk/README.md."""
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from kubeflow.common.types import KubernetesBackendConfig
from kubeflow.trainer import TrainerClient

namespace, names_file = sys.argv[1], sys.argv[2]
with open(names_file) as f:
    names = [line.strip() for line in f if line.strip()]
# the kubeconfig named outright, as sdk_check.py does: else a machine with /var/run/secrets/kubernetes.io is a pod
client = TrainerClient(backend_config=KubernetesBackendConfig(namespace=namespace,
                                                              config_file=os.environ["KUBECONFIG"]))
client.get_job(names[0])  # warm-up: imports, connections
ended = {}
started = threading.Barrier(len(names) + 1)


def wait(name):
    started.wait()
    client.wait_for_job_status(name, timeout=3600)
    ended[name] = time.time()


with ThreadPoolExecutor(max_workers=len(names)) as pool:
    futures = [pool.submit(wait, name) for name in names]
    started.wait()
    print("waiting", flush=True)
    for future in futures:
        future.result()
print(json.dumps({"ended": ended}))
