package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Kubernetes Events of a TrainJob and of what it owns (its JobSet, the JobSet's Jobs, their pods, also pods
 * already replaced or gone), in the order they first happened, each with its step: one LIST of the namespace's
 * Events (as the Kubeflow SDK's get_job_events), the job's objects known from its pods (the pod informer) and from the
 * names JobSet gives its Jobs ({@code <job>-<replicated job>-<index>}) and their pods ({@code <Job>-<index>-<suffix>}).
 * Events older than the job (of an earlier job of the same name) are left out.
 */
public final class TrainJobObjectEvents {
    private static final List<String> REPLICATED_JOBS = List.of(
            TrainingRuntimeDescriptor.DATASET_INITIALIZER,
            TrainingRuntimeDescriptor.MODEL_INITIALIZER,
            "launcher",
            "node");
    /** A pod of an Indexed Job: the Job's name, the completion index, a random suffix. */
    private static final Pattern POD_OF_JOB = Pattern.compile("(.+)-(\\d{1,6})-[a-z0-9]{5}");

    private final KubernetesClient client;
    private final ApiRetry retry;
    private final TrainJobSteps steps;

    public TrainJobObjectEvents(KubernetesClient client, ApiRetry retry, TrainJobSteps steps) {
        this.client = client;
        this.retry = retry.forClient(client);
        this.steps = steps;
    }

    /**
     * The events of {@code job}, oldest first.
     *
     * @param watched the namespace of the pod informer to read (null: the all-namespaces one)
     */
    public List<TrainJobObjectEvent> of(String watched, TrainJob job) {
        String namespace =
                KubernetesNames.namespace("namespace", job.getMetadata().getNamespace());
        String name = job.getMetadata().getName();
        List<Pod> pods = steps.podsOf(watched, job);
        boolean mpi = steps.runsMpi(job, pods);
        // each Job of the job, by name, with its replicated job
        Map<String, String> jobs = new HashMap<>();
        for (String replicatedJob : REPLICATED_JOBS) {
            jobs.put(name + "-" + replicatedJob + "-0", replicatedJob);
        }
        Map<String, String> podSteps = new HashMap<>();
        for (Pod pod : pods) {
            String replicatedJob = TrainJobSteps.label(pod, JobSetLabels.REPLICATED_JOB);
            String jobName = TrainJobSteps.label(pod, JobSetLabels.JOB_NAME);
            if (jobName != null && replicatedJob != null) {
                jobs.put(jobName, replicatedJob);
            }
            podSteps.put(
                    pod.getMetadata().getName(),
                    TrainJobSteps.stepName(
                            replicatedJob, TrainJobSteps.label(pod, JobSetLabels.COMPLETION_INDEX), mpi));
        }
        Instant created = job.getMetadata().getCreationTimestamp() == null
                ? Instant.MIN
                : OffsetDateTime.parse(job.getMetadata().getCreationTimestamp()).toInstant();

        List<Event> found = new ArrayList<>();
        Map<Event, String> stepOf = new IdentityHashMap<>();
        // the steps of each Job's pods, to name the step of a Job that runs one
        Map<String, Set<String>> jobSteps = new HashMap<>();
        for (Event event : retry.call(
                        "list Events in " + namespace,
                        () -> client.v1().events().inNamespace(namespace).list())
                .getItems()) {
            ObjectReference object = event.getInvolvedObject();
            if (object == null
                    || object.getKind() == null
                    || object.getName() == null
                    || last(event).isBefore(created)) {
                continue;
            }
            String objectName = object.getName();
            switch (object.getKind()) {
                case "TrainJob" -> {
                    if (objectName.equals(name)
                            && (isEmpty(object.getUid())
                                    || object.getUid().equals(job.getMetadata().getUid()))) {
                        found.add(event);
                    }
                }
                case "JobSet" -> {
                    if (objectName.equals(name)) {
                        found.add(event);
                    }
                }
                case "Job" -> {
                    if (jobs.containsKey(objectName)) {
                        found.add(event);
                    }
                }
                case "Pod" -> {
                    String step = podSteps.get(objectName);
                    Matcher pod = POD_OF_JOB.matcher(objectName);
                    boolean ofAJob = pod.matches() && jobs.containsKey(pod.group(1));
                    if (step == null && ofAJob) {
                        step = TrainJobSteps.stepName(jobs.get(pod.group(1)), pod.group(2), mpi);
                    }
                    if (podSteps.containsKey(objectName) || ofAJob) {
                        found.add(event);
                        stepOf.put(event, step);
                        if (ofAJob && step != null) {
                            jobSteps.computeIfAbsent(pod.group(1), j -> new HashSet<>())
                                    .add(step);
                        }
                    }
                }
                default -> {}
            }
        }
        for (Pod pod : pods) {
            String jobName = TrainJobSteps.label(pod, JobSetLabels.JOB_NAME);
            String step = podSteps.get(pod.getMetadata().getName());
            if (jobName != null && step != null) {
                jobSteps.computeIfAbsent(jobName, j -> new HashSet<>()).add(step);
            }
        }
        List<TrainJobObjectEvent> events = new ArrayList<>();
        // by the second: firstTimestamp has no finer precision, while an events.k8s.io eventTime (the scheduler's) has
        // microseconds, which would put a later event of the same second before an earlier one
        found.sort(Comparator.comparing((Event event) -> first(event).truncatedTo(ChronoUnit.SECONDS))
                .thenComparing(event -> last(event).truncatedTo(ChronoUnit.SECONDS))
                .thenComparingLong(TrainJobObjectEvents::writeOrder));
        for (Event event : found) {
            ObjectReference object = event.getInvolvedObject();
            String step = switch (object.getKind()) {
                case "Pod" -> stepOf.get(event);
                case "Job" -> jobStep(jobs.get(object.getName()), jobSteps.get(object.getName()));
                default -> null;
            };
            events.add(new TrainJobObjectEvent(
                    event.getType(),
                    event.getReason(),
                    event.getMessage(),
                    object.getKind(),
                    object.getName(),
                    step,
                    count(event),
                    time(first(event)),
                    time(last(event))));
        }
        return events;
    }

    /** An initializer's Job runs its step; the launcher's is node-0; a node Job the one step its pods run, if one. */
    private static String jobStep(String replicatedJob, Set<String> podSteps) {
        if ("launcher".equals(replicatedJob)) {
            return "node-0";
        }
        if (!"node".equals(replicatedJob)) {
            return TrainJobSteps.stepName(replicatedJob, "0", false);
        }
        return podSteps != null && podSteps.size() == 1 ? podSteps.iterator().next() : null;
    }

    private static int count(Event event) {
        if (event.getSeries() != null && event.getSeries().getCount() != null) {
            return event.getSeries().getCount();
        }
        return event.getCount() == null ? 1 : event.getCount();
    }

    /** When it first happened: firstTimestamp, else (an events.k8s.io Event) eventTime, else when it was written. */
    private static Instant first(Event event) {
        return instant(
                event.getFirstTimestamp(),
                event.getEventTime() == null ? null : event.getEventTime().getTime(),
                event.getMetadata().getCreationTimestamp());
    }

    private static Instant last(Event event) {
        Instant last = instant(
                event.getLastTimestamp(),
                event.getSeries() == null
                        ? null
                        : event.getSeries().getLastObservedTime() == null
                                ? null
                                : event.getSeries().getLastObservedTime().getTime(),
                null);
        return last == Instant.MIN ? first(event) : last;
    }

    private static Instant instant(String... candidates) {
        for (String candidate : candidates) {
            if (!isEmpty(candidate)) {
                return OffsetDateTime.parse(candidate).toInstant();
            }
        }
        return Instant.MIN;
    }

    /**
     * Events of the same second in the order the API server wrote them: its resource versions grow with each write
     * (etcd's revision), so they order what timestamps of a second's precision cannot.
     */
    private static long writeOrder(Event event) {
        String version = event.getMetadata().getResourceVersion();
        return version != null && version.matches("\\d{1,18}") ? Long.parseLong(version) : Long.MAX_VALUE;
    }

    private static String time(Instant instant) {
        return instant == Instant.MIN ? null : instant.toString();
    }

    private static boolean isEmpty(String text) {
        return text == null || text.isEmpty();
    }
}
