"""The Kubeflow Python SDK's create, timed: TrainerClient.train with a CustomTrainer (a function: the SDK's way to run
an inline script), unmodified, against the bench's target (KUBECONFIG). Arguments: namespace, runtime, creates,
threads. Prints one JSON object: seconds and creates.
Run by the bench (CreateBench) with the Python -Dbench.sdk.python names: see bench/sdk/README.md."""
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from kubeflow.common.types import KubernetesBackendConfig
from kubeflow.trainer import CustomTrainer, TrainerClient

namespace, runtime, creates, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# the kubeconfig named outright, as sdk_check.py does: else a machine with /var/run/secrets/kubernetes.io is a pod
client = TrainerClient(backend_config=KubernetesBackendConfig(namespace=namespace,
                                                              config_file=os.environ["KUBECONFIG"]))


def train():
    print(1)


def create(_):
    return client.train(runtime=runtime, trainer=CustomTrainer(func=train))


create(None)  # warm-up: imports, connections
started = time.monotonic()
with ThreadPoolExecutor(max_workers=threads) as pool:
    names = list(pool.map(create, range(creates)))
seconds = time.monotonic() - started
if len(set(names)) != creates:
    sys.exit("expected %d TrainJobs, got %d names" % (creates, len(set(names))))
print(json.dumps({"seconds": seconds, "creates": creates}))
