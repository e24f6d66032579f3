package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobSubmitter;
import io.camelkubeflow.trainer.job.TrainRequest;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * What the harness itself does to set a run up, untimed: TrainJobs made directly with the domain's submitter (not
 * through a route), and any such calls spread over a few threads.
 */
final class HarnessJobs {
    private static final int THREADS = 8;

    private HarnessJobs() {}

    /** {@code count} TrainJobs of a file in the image on the runtime, suspended if asked, as the API server stored them. */
    static List<TrainJob> create(
            KubernetesClient client, String namespace, String runtime, int count, boolean suspended) throws Exception {
        TrainJobSubmitter submitter = new TrainJobSubmitter(client);
        return onThreads(count, i -> {
            TrainRequest request = new TrainRequest()
                    .runtime(runtime)
                    .namespace(namespace)
                    .pythonFile("/app/train.py")
                    .suspend(suspended ? Boolean.TRUE : null)
                    .idempotencyKey(namespace + "-" + i);
            return () -> client.resources(TrainJob.class)
                    .inNamespace(namespace)
                    .resource(submitter.prepare(request, namespace).trainJob())
                    .create();
        });
    }

    /** Calls {@code task.apply(i)} for i below {@code count} on a few threads: the answers, in order. */
    static <R> List<R> onThreads(int count, IntFunction<Callable<R>> task) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<R>> submitted = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                submitted.add(threads.submit(task.apply(i)));
            }
            List<R> answers = new ArrayList<>();
            for (Future<R> answer : submitted) {
                answers.add(answer.get());
            }
            return answers;
        } finally {
            threads.shutdown();
        }
    }
}
