"""Runs the Kubeflow Python SDK's TrainerClient, unmodified, against the cluster of $KUBECONFIG (the sandbox or a
real control plane): every call the SDK offers for TrainJobs and runtimes. Prints one line per call, with what it
returned, and exits non-zero if any failed.

Usage: KUBECONFIG=... python sdk_check.py [NAMESPACE]   (the e2e module's KubeflowSdkIT runs it on both targets)
"""
import contextlib
import io
import os
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
        print(f"ok   {name} ({(time.monotonic() - started) * 1000:.0f} ms): {str(result)[:160]}", flush=True)
        return result
    except Exception as error:  # noqa: BLE001 - every failure is reported
        print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
        traceback.print_exc(limit=3)
        failures.append(name)
        return None


def train_fn():
    # the sleep keeps the job Running across more than one of wait_for_job_status's 2 s polls, and the stream of
    # get_job_logs(follow=True) open while the container still has a line to write
    import time
    print("train_fn: started", flush=True)
    time.sleep(5)
    print("train_fn: done", flush=True)


def runtime_packages(runtime):
    """What get_runtime_packages prints (it returns nothing), shortened to its first line: the log of the job it ran,
    the image's Python version and `pip list` on a cluster, the emulated steps on the sandbox (which runs no code)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        client.get_runtime_packages(runtime)
    lines = printed.getvalue().splitlines()
    return f"{lines[0] if lines else ''} ({len(lines)} lines)"


def same_lines(followed, finished):
    if followed != finished:
        raise AssertionError(f"the stream ended before the container did: followed {followed}, finished {finished}")
    return f"{len(finished)} lines"


if "KUBECONFIG" not in os.environ:
    sys.exit(__doc__)
# the kubeconfig named outright: without it the SDK takes any machine with /var/run/secrets/kubernetes.io for a pod
# and loads the in-cluster configuration instead
client = TrainerClient(backend_config=KubernetesBackendConfig(
    namespace=sys.argv[1] if len(sys.argv) > 1 else "default", config_file=os.environ["KUBECONFIG"]))
runtimes = step("list_runtimes", client.list_runtimes)
runtime = step("get_runtime", lambda: client.get_runtime("torch-distributed"))
step("get_runtime_packages", lambda: runtime_packages(runtime))
name = step("train", lambda: client.train(runtime=runtime, trainer=CustomTrainer(func=train_fn, num_nodes=2,
                                                                                  resources_per_node={"cpu": 1.0})))
step("get_job", lambda: client.get_job(name))
step("list_jobs", lambda: [j.name for j in client.list_jobs()])
step("wait_for_job_status Running", lambda: client.wait_for_job_status(name, status={"Running"}, timeout=60).status)
followed = step("get_job_logs follow", lambda: list(client.get_job_logs(name, follow=True)))
step("wait_for_job_status", lambda: client.wait_for_job_status(name, timeout=60).status)
finished = step("get_job_logs", lambda: list(client.get_job_logs(name)))
step("get_job_logs follow read to the end", lambda: same_lines(followed, finished))
step("get_job_events", lambda: [f"{e.involved_object_kind} {e.reason}" for e in client.get_job_events(name)])
step("delete_job", lambda: client.delete_job(name))
sys.exit(1 if failures else 0)
