package io.camelkubeflow.trainer.logs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and follows the logs of a TrainJob's steps. Waits (by watch) for a step's pod to exist and leave Pending
 * instead of returning nothing. Following resumes after a broken stream from the last line's timestamp, skipping the
 * lines already delivered, so nothing is repeated or lost; a pod replaced by JobSet is picked up by its labels.
 */
public class TrainJobLogs {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobLogs.class);
    static final String INDEX_LABEL = "batch.kubernetes.io/job-completion-index";
    private static final Set<String> TERMINAL = Set.of("Succeeded", "Failed");
    /** The replicated jobs that run user code, in the trainer container: the nodes and any launcher's own job. */
    private static final Set<String> TRAINER_JOBS = Arrays.stream(Launcher.values()).map(Launcher::replicatedJob)
            .collect(Collectors.toSet());
    /**
     * How long following keeps resuming a stream that breaks without delivering a line (an API server restart or
     * outage) before it gives up.
     */
    private static final Duration MAX_OUTAGE = Duration.ofMinutes(2);
    /** Pause before resuming a stream that ended while its pod still runs; doubled while it keeps breaking. */
    private static final Duration RESUME_PAUSE = Duration.ofMillis(200);
    private static final Duration MAX_RESUME_PAUSE = Duration.ofSeconds(5);

    private final KubernetesClient client;
    private final ClusterInformers informers;

    /** @param informers the client's informers: a read waits for its pods on the namespace's pod informer */
    public TrainJobLogs(KubernetesClient client, ClusterInformers informers) {
        this.client = client;
        this.informers = informers;
    }

    /** Options of one read. {@code tailLines} and {@code sinceSeconds} may be null. */
    public record Request(String namespace, String jobName, LogStep step, boolean follow, Integer tailLines,
            Integer sinceSeconds, Duration startTimeout) {
    }

    /**
     * Delivers the step's log lines to the sink: what is there now, or (follow) everything until the pods end. For
     * {@code all}, each pod is read on its own task of {@code executor} and lines are delivered as they come.
     */
    public List<String> read(Request request, LogSink sink, ExecutorService executor) {
        List<Selector> selectors = selectors(request);
        if (selectors.size() == 1) {
            readPod(request, selectors.get(0), sink);
            return List.of(selectors.get(0).step);
        }
        List<CompletableFuture<Void>> tasks = new ArrayList<>();
        for (Selector selector : selectors) {
            tasks.add(CompletableFuture.runAsync(() -> readPod(request, selector, new Batches(sink)), executor));
        }
        try {
            CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading logs", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
        return selectors.stream().map(s -> s.step).toList();
    }

    /**
     * The pods to read. For the trainer step and all steps they are found from the job's pods once one of them runs:
     * JobSet has made every pod of the job by then.
     */
    private List<Selector> selectors(Request request) {
        if (request.step().kind() == LogStep.Kind.ONE) {
            return List.of(new Selector(request.step().replicatedJob(), Integer.toString(request.step().index())));
        }
        List<Pod> pods = awaitPods(request, Map.of(), found -> found.stream().anyMatch(TrainJobLogs::started));
        if (request.step().kind() == LogStep.Kind.TRAINER) {
            // a launcher that runs in a job of its own (mpirun) logs for the whole job; else node 0 does
            String launcherJob = pods.stream().map(p -> label(p, JobSetLabels.REPLICATED_JOB))
                    .filter(job -> TRAINER_JOBS.contains(job) && !Launcher.DEFAULT_REPLICATED_JOB.equals(job))
                    .findFirst().orElse(Launcher.DEFAULT_REPLICATED_JOB);
            return List.of(new Selector(launcherJob, "0"));
        }
        Map<String, Selector> all = new LinkedHashMap<>();
        pods.stream()
                .filter(p -> TRAINER_JOBS.contains(label(p, JobSetLabels.REPLICATED_JOB)))
                .sorted(Comparator.comparing((Pod p) -> label(p, JobSetLabels.REPLICATED_JOB))
                        .thenComparing(p -> Integer.parseInt(label(p, INDEX_LABEL))))
                .forEach(p -> {
                    Selector selector = new Selector(label(p, JobSetLabels.REPLICATED_JOB), label(p, INDEX_LABEL));
                    all.put(selector.step, selector);
                });
        return new ArrayList<>(all.values());
    }

    private void readPod(Request request, Selector selector, LogSink sink) {
        Position position = new Position();
        boolean first = true;
        // since when the stream breaks without delivering a line (System.nanoTime), or 0
        long brokenSince = 0;
        Duration pause = RESUME_PAUSE;
        int restartsSeen = 0;
        while (true) {
            Pod pod = awaitStarted(request, selector);
            String container = container(pod, selector);
            boolean endedBeforeRead = TERMINAL.contains(pod.getStatus().getPhase());
            long deliveredBefore = position.delivered;
            String podName = pod.getMetadata().getName();
            int restarts = restartCount(pod, container);
            try {
                if (request.follow() && restarts > restartsSeen) {
                    // the container crashed and was restarted (JobSet restarts OnFailure): the end of the crashed
                    // attempt is only in its previous log
                    try (BufferedReader previous = open(request.namespace(), podName,
                            query(container, false, true, position, null, null))) {
                        deliver(previous, position, sink, selector.step);
                    }
                    restartsSeen = restarts;
                }
                boolean resumed = position.started();
                PodLogStream.Query query = query(container, request.follow(), false, position,
                        first ? request.tailLines() : null, first ? request.sinceSeconds() : null);
                first = false;
                try (BufferedReader current = open(request.namespace(), podName, query)) {
                    if (!query.timestamps()) {
                        deliverAsRead(current, sink, selector.step);
                    } else if (resumed) {
                        deliverResumed(current, request.namespace(), podName, container, position, sink,
                                selector.step);
                    } else {
                        deliver(current, position, sink, selector.step);
                    }
                }
                brokenSince = 0;
                pause = RESUME_PAUSE;
            } catch (SinkFailedException e) {
                // the receiver of the lines failed (a closed HTTP response, a failing destination route): that is not
                // a broken stream, and resuming would only skip the line it refused
                throw e.sinkFailure();
            } catch (IOException | RuntimeException e) {
                // a broken stream (IOException, or the HTTP client's own closed-connection error) is resumed from
                // the last line delivered, backing off while the API server is away; only a stream that delivers
                // nothing for MAX_OUTAGE is given up on
                boolean delivered = position.delivered != deliveredBefore;
                if (delivered || brokenSince == 0) {
                    brokenSince = System.nanoTime();
                    pause = RESUME_PAUSE;
                }
                // a refusal (401, 403 on pods/log) is not an outage: waiting would not change it (a 404 is: JobSet
                // replaced the pod, which the next look finds by its labels)
                boolean refused = e instanceof KubernetesClientException k && (k.getCode() == 401 || k.getCode() == 403);
                if (!request.follow() || refused || System.nanoTime() - brokenSince > MAX_OUTAGE.toNanos()) {
                    throw e instanceof RuntimeException r ? r : new UncheckedIOException((IOException) e);
                }
                try (var log = TrainJobMdc.of(request.namespace(), request.jobName())) {
                    LOG.debug("Log stream of {} broke, resuming in {} ms: {}", pod.getMetadata().getName(),
                            pause.toMillis(), e.getMessage());
                }
                pause(pause);
                Duration doubled = pause.multipliedBy(2);
                pause = doubled.compareTo(MAX_RESUME_PAUSE) > 0 ? MAX_RESUME_PAUSE : doubled;
                continue;
            }
            if (!request.follow() || endedBeforeRead) {
                return;
            }
            pause(RESUME_PAUSE);
        }
    }

    /**
     * Where a reader of one pod is: the last line delivered (its timestamp is where a resumed read starts) and how many
     * lines with exactly that timestamp were delivered. A resumed read starts at that second (the API server's
     * sinceTime precision) and skips what was delivered, so no line is repeated or lost. The timestamp is kept as the
     * kubelet wrote it and parsed only when a read resumes: parsing every line was most of a read's cost.
     */
    private static final class Position {
        /** The last line delivered, with its timestamp; null before the first. */
        private String lastLine;
        /** Where the timestamp of {@link #lastLine} ends. */
        private int stampEnd;
        private Instant lastTime;
        int deliveredAtLastTime;
        /** Lines delivered in all: a read that moved it on was not an outage. */
        long delivered;

        boolean started() {
            return lastLine != null;
        }

        /** The timestamp of the last line delivered; null before the first. */
        Instant lastTime() {
            if (lastTime == null && lastLine != null) {
                lastTime = parseTime(lastLine.substring(0, stampEnd));
            }
            return lastTime;
        }

        /** Whether {@code raw}'s timestamp, ending at {@code stampEnd}, is the last line's, as text. */
        boolean atLastTime(String raw, int end) {
            if (lastLine == null || end != stampEnd) {
                return false;
            }
            // from the end: two lines' times differ in their last digits, and share their date
            for (int i = end - 1; i >= 0; i--) {
                if (raw.charAt(i) != lastLine.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        void delivered(String raw, int end) {
            if (atLastTime(raw, end)) {
                deliveredAtLastTime++;
            } else {
                lastLine = raw;
                stampEnd = end;
                lastTime = null;
                deliveredAtLastTime = 1;
            }
            delivered++;
        }
    }

    /**
     * A log read's query: from the position's second when there is one (the API server's sinceTime precision; the
     * lines of that second already delivered are skipped by {@link LineFilter}), else from {@code tailLines} or
     * {@code sinceSeconds} when given.
     */
    private static PodLogStream.Query query(String container, boolean follow, boolean previous, Position position,
            Integer tailLines, Integer sinceSeconds) {
        if (position.started()) {
            return new PodLogStream.Query(container, follow, previous, position.lastTime()
                    .truncatedTo(ChronoUnit.SECONDS).atOffset(ZoneOffset.UTC)
                    .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), null, null);
        }
        return new PodLogStream.Query(container, follow, previous, null, tailLines, tailLines == null ? sinceSeconds
                : null);
    }

    private BufferedReader open(String namespace, String pod, PodLogStream.Query query) throws IOException {
        return new BufferedReader(new InputStreamReader(PodLogStream.open(client, namespace, pod, query),
                StandardCharsets.UTF_8), 64 * 1024);
    }

    private static void deliver(BufferedReader reader, Position position, LogSink sink, String step)
            throws IOException {
        deliver(reader, new LineFilter(position), sink, step);
    }

    /**
     * Delivers a reader's lines through the filter; the sink hears when no more are at hand, and before a broken
     * stream is resumed, so what it holds back is neither late nor lost.
     */
    private static void deliver(BufferedReader reader, LineFilter filter, LogSink sink, String step)
            throws IOException {
        try {
            String raw;
            while ((raw = reader.readLine()) != null) {
                filter.deliver(raw, sink, step);
                if (!reader.ready()) {
                    idle(sink);
                }
            }
        } finally {
            idle(sink);
        }
    }

    /** A read that is not resumed, so without timestamps: its lines as they are. */
    private static void deliverAsRead(BufferedReader reader, LogSink sink, String step) throws IOException {
        try {
            String line;
            while ((line = reader.readLine()) != null) {
                try {
                    sink.line(step, line);
                } catch (RuntimeException e) {
                    throw new SinkFailedException(e);
                }
                if (!reader.ready()) {
                    idle(sink);
                }
            }
        } finally {
            idle(sink);
        }
    }

    private static void idle(LogSink sink) {
        try {
            sink.idle();
        } catch (RuntimeException e) {
            throw new SinkFailedException(e);
        }
    }

    /**
     * The sink of one pod's reader when several pods are read at once: lines go to the shared sink in batches, each
     * under one hold of its lock (a lock per line, taken in turn by every reader, was the cost of reading all ranks).
     */
    private static final class Batches implements LogSink {
        private static final int MAX_BATCH = 1000;
        private final LineBatch batch;

        Batches(LogSink shared) {
            batch = new LineBatch(MAX_BATCH, (step, texts) -> {
                synchronized (shared) {
                    for (String text : texts) {
                        shared.line(step, text);
                    }
                    shared.idle();
                }
            });
        }

        @Override
        public void line(String step, String text) {
            batch.add(step, text);
        }

        @Override
        public void idle() {
            batch.flush();
        }
    }


    /**
     * A resumed follow of the current container: the container may have restarted since the pod was looked at (the
     * kubelet reports the restart count after the new container's log is there), so before the first new line of the
     * current container, the end of the previous container's log that is newer than what was delivered comes first.
     * Without a restart there is no previous log (the API server answers 400) or nothing in it is newer.
     */
    private void deliverResumed(BufferedReader current, String namespace, String pod, String container,
            Position position, LogSink sink, String step) throws IOException {
        LineFilter filter = new LineFilter(position);
        String first = current.readLine();
        if (first == null) {
            return;
        }
        Instant firstTime = timeOf(first);
        if (firstTime != null && firstTime.isAfter(position.lastTime())) {
            LineFilter previousFilter = new LineFilter(position);
            try (BufferedReader lines = open(namespace, pod, query(container, false, true, position, null, null))) {
                String raw;
                while ((raw = lines.readLine()) != null) {
                    Instant time = timeOf(raw);
                    if (time != null && time.isBefore(firstTime)) {
                        previousFilter.deliver(raw, sink, step);
                    }
                }
            } catch (KubernetesClientException e) {
                // no previous container (400): nothing to add
            } finally {
                idle(sink);
            }
            // what the previous log delivered is older than the current container's lines: nothing of those to skip
            filter = new LineFilter(position);
        }
        filter.deliver(first, sink, step);
        deliver(current, filter, sink, step);
    }

    private static Instant timeOf(String raw) {
        int end = stampEnd(raw);
        return end < 0 ? null : parseTime(raw.substring(0, end));
    }

    /**
     * Where the timestamp the API server put before a line ends (the space after it), or -1 when the line does not
     * start with one: a date and a time, {@code 2006-01-02T15:04:05...}; a full parse is left to when it is needed.
     */
    private static int stampEnd(String raw) {
        int space = raw.indexOf(' ');
        return space >= 20 && raw.charAt(4) == '-' && raw.charAt(10) == 'T' ? space : -1;
    }

    /**
     * Delivers the lines of one read that come after the position (the API server's sinceTime is to the second, so a
     * resumed read repeats the lines of that second already delivered), moving the position on. Only a resumed read's
     * lines up to the first one newer than the position have their time parsed.
     */
    private static final class LineFilter {
        private final Position position;
        /** Whether every line from here on is new: a fresh read, or a resumed one past the position. */
        private boolean caughtUp;
        private int skippedAtLastTime;

        LineFilter(Position position) {
            this.position = position;
            this.caughtUp = !position.started();
        }

        void deliver(String raw, LogSink sink, String step) {
            int end = stampEnd(raw);
            if (end >= 0 && !caughtUp) {
                Instant time = parseTime(raw.substring(0, end));
                if (time != null) {
                    int order = time.compareTo(position.lastTime());
                    if (order < 0) {
                        return;
                    }
                    if (order == 0 && skippedAtLastTime < position.deliveredAtLastTime) {
                        skippedAtLastTime++;
                        return;
                    }
                    // past the position, or past the lines of its time already delivered: the rest is new
                    caughtUp = true;
                }
            }
            String text = end < 0 ? raw : raw.substring(end + 1);
            if (end >= 0) {
                position.delivered(raw, end);
            } else {
                position.delivered++;
            }
            try {
                sink.line(step, text);
            } catch (RuntimeException e) {
                throw new SinkFailedException(e);
            }
        }
    }

    /** Carries a sink's failure through the stream-resumption logic untouched. */
    private static final class SinkFailedException extends RuntimeException {
        SinkFailedException(RuntimeException cause) {
            super(cause);
        }

        RuntimeException sinkFailure() {
            return (RuntimeException) getCause();
        }
    }

    private static int restartCount(Pod pod, String container) {
        return pod.getStatus().getContainerStatuses().stream().filter(c -> container.equals(c.getName()))
                .map(c -> c.getRestartCount() == null ? 0 : c.getRestartCount()).findFirst().orElse(0);
    }

    /**
     * Waits, on the namespace's pod informer, for the step's newest pod to leave Pending, then reads that pod as it is
     * now: the informer's copy may lag behind a restart whose crashed attempt's log must be read first.
     */
    private Pod awaitStarted(Request request, Selector selector) {
        List<Pod> pods = awaitPods(request, selector.labels(), candidates -> candidates.stream()
                .anyMatch(TrainJobLogs::started));
        Pod newest = pods.stream()
                .filter(TrainJobLogs::started)
                .max(Comparator.comparing(p -> p.getMetadata().getCreationTimestamp() == null ? ""
                        : p.getMetadata().getCreationTimestamp()))
                .orElseThrow();
        Pod current;
        try {
            current = client.pods().inNamespace(request.namespace()).withName(newest.getMetadata().getName()).get();
        } catch (KubernetesClientException e) {
            // the API server is away (a resumed follow during an outage): the informer's copy will do, and the log
            // read that follows meets the same outage and backs off
            return newest;
        }
        return current != null && started(current) ? current : newest;
    }

    private List<Pod> awaitPods(Request request, Map<String, String> labels,
            java.util.function.Predicate<List<Pod>> condition) {
        CompletableFuture<List<Pod>> ready = informers.awaitPods(request.namespace(), request.jobName(), labels,
                condition);
        try {
            return ready.get(request.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            Map<String, String> selector = new LinkedHashMap<>(labels);
            selector.put(JobSetLabels.JOBSET_NAME, request.jobName());
            throw new LogStartTimeoutException(request.namespace(), request.jobName(), selector, request.startTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for pods", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } finally {
            // however the wait ended, the informer stops looking on its behalf
            ready.cancel(false);
        }
    }

    private static boolean started(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getPhase() != null
                && !"Pending".equals(pod.getStatus().getPhase());
    }

    private static String container(Pod pod, Selector selector) {
        String wanted = TRAINER_JOBS.contains(selector.replicatedJob) ? TrainingRuntimeDescriptor.TRAINER_CONTAINER
                : selector.replicatedJob;
        return pod.getSpec().getContainers().stream().map(c -> c.getName()).filter(wanted::equals).findFirst()
                .orElse(pod.getSpec().getContainers().get(0).getName());
    }

    private static Instant parseTime(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String label(Pod pod, String key) {
        return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
    }

    private static void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while following logs", e);
        }
    }

    private record Selector(String replicatedJob, String index, String step) {
        Selector(String replicatedJob, String index) {
            this(replicatedJob, index, LogStep.stepName(replicatedJob, index));
        }

        Map<String, String> labels() {
            return Map.of(JobSetLabels.REPLICATED_JOB, replicatedJob, INDEX_LABEL, index);
        }
    }
}
