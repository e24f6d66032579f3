"""Runs the Kubeflow Python SDK's TrainerClient, unmodified, against a running sandbox (KUBECONFIG): every call
the SDK offers for TrainJobs and runtimes. Prints one line per call and exits non-zero on the first failure.
Not part of CI (it needs the SDK, fetched): see bench/sdk/README.md."""
import sys
import time
import traceback

from kubeflow.common.types import KubernetesBackendConfig
from kubeflow.trainer import CustomTrainer, TrainerClient

failures = []


def step(name, call):
    started = time.monotonic()
    try:
        result = call()
        print(f"ok   {name} ({(time.monotonic() - started) * 1000:.0f} ms): {str(result)[:160]}")
        return result
    except Exception as error:  # noqa: BLE001 - every failure is reported
        print(f"FAIL {name}: {type(error).__name__}: {error}")
        traceback.print_exc(limit=3)
        failures.append(name)
        return None


def train_fn():
    print("hello from the sandbox")


client = TrainerClient(backend_config=KubernetesBackendConfig(namespace=sys.argv[1] if len(sys.argv) > 1 else "default"))
runtimes = step("list_runtimes", client.list_runtimes)
runtime = step("get_runtime", lambda: client.get_runtime("torch-distributed"))
step("get_runtime_packages", lambda: client.get_runtime_packages(runtime))
name = step("train", lambda: client.train(runtime=runtime, trainer=CustomTrainer(func=train_fn, num_nodes=2,
                                                                                  resources_per_node={"cpu": 1.0})))
step("get_job", lambda: client.get_job(name))
step("list_jobs", lambda: [j.name for j in client.list_jobs()])
step("wait_for_job_status Running", lambda: client.wait_for_job_status(name, status={"Running"}, timeout=60).status)
followed = step("get_job_logs follow", lambda: list(client.get_job_logs(name, follow=True)))
if followed is not None and (not followed or not followed[-1].startswith("sandbox: exited")):
    print(f"FAIL get_job_logs follow: the stream ended before the container did: {followed}")
    failures.append("get_job_logs follow (complete)")
step("wait_for_job_status", lambda: client.wait_for_job_status(name, timeout=60).status)
step("get_job_logs", lambda: list(client.get_job_logs(name)))
step("get_job_events", lambda: [(e.reason, e.message) for e in client.get_job_events(name)])
step("delete_job", lambda: client.delete_job(name))
sys.exit(1 if failures else 0)
