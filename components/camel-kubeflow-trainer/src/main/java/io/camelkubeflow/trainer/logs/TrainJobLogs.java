package io.camelkubeflow.trainer.logs;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and follows the logs of a TrainJob's steps. Waits (by watch) for a step's pod to exist and leave Pending
 * instead of returning nothing, or, asked not to wait, says at once that none has started. Following resumes after a
 * broken stream from the last line's timestamp, skipping the lines already delivered, so nothing is repeated or lost;
 * a pod replaced by JobSet is picked up by its labels. A
 * container that had ended before its log was read has a final log: following it is a plain read (no timestamps,
 * 31 bytes fewer a line), resumed by skipping as many lines as were delivered.
 */
public class TrainJobLogs {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobLogs.class);
    private static final Set<String> TERMINAL = Set.of("Succeeded", "Failed");
    /**
     * How long a follow keeps looking for the end of a pod's container once the TrainJob has ended: the kubelet writes
     * a container's end within seconds (its status manager retries), so a pod still not reported ended by then never
     * will be, and the follow fails naming it rather than outlive the job.
     */
    public static final Duration END_GRACE = Duration.ofSeconds(30);
    /** The replicated jobs that run user code, in the trainer container: the nodes and any launcher's own job. */
    private static final Set<String> TRAINER_JOBS =
            Arrays.stream(Launcher.values()).map(Launcher::replicatedJob).collect(Collectors.toSet());
    /**
     * How long following keeps resuming a stream that breaks without delivering a line (an API server restart or
     * outage) before it gives up.
     */
    private static final Duration MAX_OUTAGE = Duration.ofMinutes(2);
    /** Pause before resuming a stream that ended while its pod still runs; doubled while it keeps breaking. */
    private static final Duration RESUME_PAUSE = Duration.ofMillis(200);

    private static final Duration MAX_RESUME_PAUSE = Duration.ofSeconds(5);

    /** A completion index as the Job controller writes it. */
    private static final Pattern COMPLETION_INDEX = Pattern.compile("\\d{1,9}");

    /** Lines taken from a stream at a time, between looks at the sink's readiness. */
    private static final int MAX_TAKE = 1024;

    private final KubernetesClient client;
    private final ClusterInformers informers;
    private final Executor executor;
    private final Duration endGrace;

    /**
     * @param informers the client's informers: a read waits for its pods on the namespace's pod informer
     * @param executor runs the reading and the sink's calls; no thread is held while a reader waits for lines, so a few
     *        threads serve any number of readers
     */
    public TrainJobLogs(KubernetesClient client, ClusterInformers informers, Executor executor) {
        this(client, informers, executor, END_GRACE);
    }

    /** @param endGrace how long a follow looks for a pod's end once the TrainJob has ended ({@link #END_GRACE}) */
    TrainJobLogs(KubernetesClient client, ClusterInformers informers, Executor executor, Duration endGrace) {
        this.client = client;
        this.informers = informers;
        this.executor = executor;
        this.endGrace = endGrace;
    }

    /**
     * Options of one read. {@code tailLines} and {@code sinceSeconds} may be null. {@code startTimeout} is how long the
     * read waits for a pod of its step to start; zero: not at all, it reads what there is as the pod informer has it
     * (the started pods of {@code all}), and fails at once with {@link LogNotStartedException} when no pod it is to read
     * has started.
     */
    public record Request(
            String namespace,
            String jobName,
            LogStep step,
            boolean follow,
            Integer tailLines,
            Integer sinceSeconds,
            Duration startTimeout) {
        /** Whether the read waits for pods to start, rather than reading what there is. */
        boolean waitsForStart() {
            return !startTimeout.isZero() && !startTimeout.isNegative();
        }
    }

    /**
     * Delivers the step's log lines to the sink: what is there now, or (follow) everything until the pods end. For
     * {@code all}, each pod is read on its own and lines are delivered as they come. Completes with the steps read, or
     * fails with what ended the read (the first failure of any pod's read ends the others); cancelling it ends the
     * read.
     */
    public CompletableFuture<List<String>> read(Request request, LogSink sink) {
        CompletableFuture<List<String>> result = new CompletableFuture<>();
        List<PodReader> readers = new CopyOnWriteArrayList<>();
        JobEnd end = new JobEnd(request);
        CompletableFuture<List<Pod>> podsFound;
        try {
            // trainer and all wait for a pod they read (never an initializer's) to start
            podsFound = request.step().kind() == LogStep.Kind.ONE
                    ? null
                    : awaitPods(
                            request,
                            Map.of(),
                            end,
                            true,
                            found -> found.stream().anyMatch(p -> readsUserCode(p) && started(p)));
        } catch (RuntimeException e) {
            end.stopLooking();
            throw e;
        }
        result.whenComplete((steps, failure) -> {
            if (podsFound != null) {
                podsFound.cancel(false);
            }
            end.stopLooking();
            readers.forEach(PodReader::stop);
        });
        CompletableFuture<List<Pod>> pods =
                podsFound == null ? CompletableFuture.completedFuture(List.of()) : podsFound;
        pods.whenComplete((found, failure) -> {
            // whatever fails here fails the read: a read that never completes is the one outcome it may not have
            try {
                if (failure != null) {
                    result.completeExceptionally(startFailure(failure, request, Map.of()));
                    return;
                }
                List<Pod> candidates = found != null
                        ? found
                        : startedAtEnd(
                                request,
                                Map.of(),
                                end,
                                request.step().kind() == LogStep.Kind.ALL ? "all" : "trainer",
                                result);
                if (candidates == null) {
                    return;
                }
                new Readers(request, sink, readers, result, end).start(selectors(request, candidates));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * The started pods with these labels once the job ended before the informer showed one: listed from the API server
     * (the pod informer may lag behind the TrainJob informer); none, and {@code result} fails with
     * {@link LogGoneException} and null is returned.
     */
    private List<Pod> startedAtEnd(
            Request request, Map<String, String> labels, JobEnd end, String step, CompletableFuture<?> result) {
        List<Pod> started;
        try {
            started = startedPods(request, labels);
        } catch (KubernetesClientException e) {
            result.completeExceptionally(e);
            return null;
        }
        if (started.isEmpty()) {
            result.completeExceptionally(
                    new LogGoneException(request.namespace(), request.jobName(), step, end.describe()));
            return null;
        }
        return started;
    }

    /** The started pods with these labels, as the API server has them now. */
    private List<Pod> startedPods(Request request, Map<String, String> labels) {
        return client
                .pods()
                .inNamespace(request.namespace())
                .withLabels(selector(request, labels))
                .list()
                .getItems()
                .stream()
                .filter(p -> matches(p, labels) && TrainJobLogs.started(p))
                .toList();
    }

    /**
     * The readers of one read, one per step, and when it ends. Reading all steps while following, a pod that starts
     * after the first ones gets a reader too: the Job controller makes a Job's pods in batches, so the first pod of a
     * node job can run before the next one exists. The read ends once every reader has, and no started pod of the job
     * has a step without one.
     */
    private final class Readers {
        private final Request request;
        private final LogSink sink;
        private final List<PodReader> readers;
        private final CompletableFuture<List<String>> result;
        private final JobEnd end;
        private final boolean severalPods;
        private final boolean latePods;
        /** The steps with a reader, in the order they got it; guards {@link #active}. */
        private final List<String> steps = new ArrayList<>();

        private int active;
        /** Set once the read is to end: no reader starts after it. */
        private boolean ending;

        Readers(
                Request request,
                LogSink sink,
                List<PodReader> readers,
                CompletableFuture<List<String>> result,
                JobEnd end) {
            this.request = request;
            this.sink = sink;
            this.readers = readers;
            this.result = result;
            this.end = end;
            this.severalPods = request.step().kind() == LogStep.Kind.ALL;
            this.latePods = severalPods && request.follow();
        }

        void start(List<Selector> selectors) {
            hold(); // while the first readers start, so none of them ends the read alone
            boolean several = severalPods || selectors.size() > 1;
            selectors.forEach(selector -> read(selector, several));
            if (latePods) {
                discover();
            }
            readerEnded();
        }

        private void read(Selector selector, boolean several) {
            synchronized (steps) {
                if (steps.contains(selector.step) || !open()) {
                    return;
                }
                steps.add(selector.step);
                active++;
            }
            PodReader reader = new PodReader(request, selector, several ? new Batches(sink) : sink, end);
            readers.add(reader);
            reader.start().whenComplete((ignored, readFailure) -> {
                if (readFailure != null) {
                    result.completeExceptionally(readFailure);
                } else {
                    readerEnded();
                }
            });
            if (result.isDone()) {
                reader.stop();
            }
        }

        /**
         * Starts a reader for each pod of a step not read yet, whenever the pod informer shows one: pending too when
         * the read waits for pods to start (its reader waits for it), else once it started.
         */
        private void discover() {
            CompletableFuture<List<Pod>> more = informers.awaitPods(
                    request.namespace(),
                    request.jobName(),
                    Map.of(),
                    pods -> !unread(pods).isEmpty());
            result.whenComplete((ignored, failure) -> more.cancel(false));
            more.whenComplete((pods, failure) -> {
                // an ending read starts no reader, so its unread pods would complete the next look at once: none
                if (failure == null && open()) {
                    unread(pods).forEach(selector -> read(selector, true));
                    discover();
                }
            });
        }

        /** Whether readers may still start. */
        private boolean open() {
            synchronized (steps) {
                return !ending && !result.isDone();
            }
        }

        private List<Selector> unread(List<Pod> pods) {
            List<Selector> selectors = selectors(request, pods);
            synchronized (steps) {
                return selectors.stream()
                        .filter(selector -> !steps.contains(selector.step))
                        .toList();
            }
        }

        private void hold() {
            synchronized (steps) {
                active++;
            }
        }

        /**
         * A reader ended (or a hold was let go). Once none runs, a follow of all steps reads the pods that came without a
         * reader yet, and ends only once the TrainJob has: until then JobSet may still make pods (a late batch, a
         * restart). The pods are looked up outside the lock: that may start an informer.
         */
        private void readerEnded() {
            synchronized (steps) {
                if (--active > 0) {
                    return;
                }
            }
            if (latePods) {
                List<Pod> pods;
                try {
                    // once the job has ended, the pods as the API server has them: the pod informer may lag behind
                    // the TrainJob informer, and a pod it has not shown yet would be left unread
                    pods = end.ended()
                            ? client.pods()
                                    .inNamespace(request.namespace())
                                    .withLabels(selector(request, Map.of()))
                                    .list()
                                    .getItems()
                            : informers.podsOf(
                                    request.namespace(), new TrainJobRef(request.namespace(), request.jobName()));
                } catch (KubernetesClientException e) {
                    result.completeExceptionally(e);
                    return;
                }
                List<Selector> late = unread(pods);
                if (!late.isEmpty()) {
                    hold(); // the late readers start before this hold goes
                    late.forEach(selector -> read(selector, true));
                    readerEnded();
                    return;
                }
                if (!end.ended()) {
                    hold(); // let go when the job ends: a pod made meanwhile gets a reader from discover
                    end.whenEnded(this::readerEnded);
                    return;
                }
            }
            List<String> read;
            synchronized (steps) {
                if (active > 0) {
                    return; // a reader started meanwhile: its end ends the read
                }
                ending = true;
                read = List.copyOf(steps);
            }
            // outside the lock: whoever waits on the read runs here
            result.complete(read);
        }
    }

    /**
     * Whether the TrainJob has ended, as the namespace's TrainJob informer shows it (Complete, Failed, or deleted): the
     * end of waiting for a pod that will not come, and of following a pod whose end is never reported.
     */
    private final class JobEnd {
        private final CompletableFuture<TrainJob> looking;
        /** What runs once the job has ended, each taken out as it runs (or as its wait ends first). */
        private final Set<Runnable> listeners = ConcurrentHashMap.newKeySet();

        private final AtomicBoolean once = new AtomicBoolean();
        /** Set after {@link #last}, {@link #absent} and {@link #seenAt}: who reads it set reads them. */
        private volatile boolean ended;
        /** The job as it ended (null: deleted, or never made, as a GET found it). */
        private volatile TrainJob last;

        private volatile String absent;
        /** When this read learned of the end (System.nanoTime). */
        private volatile long seenAt;

        JobEnd(Request request) {
            looking = informers.awaitEnd(request.namespace(), request.jobName());
            if (looking.isDone()) {
                // ended before the read began: known now, before the read's first look
                looking.thenAccept(job -> end(job, null));
            } else {
                // the informer's events come on fabric8's thread, which a new informer's first list may need: what the
                // end sets off (lists, new readers, the caller's completion) runs on the read's executor
                looking.thenAccept(job -> dispatchOrRun(() -> end(job, null)));
            }
            if (!looking.isDone()
                    && informers
                                    .trainJobsServing(request.namespace())
                                    .getStore()
                                    .getByKey(request.namespace() + "/" + request.jobName())
                            == null) {
                // not in the informer's cache: made a moment ago, or gone before its delete could be seen; the API
                // server says which (a job deleted before the read began sends no delete event to wait for)
                try {
                    if (client.resources(TrainJob.class)
                                    .inNamespace(request.namespace())
                                    .withName(request.jobName())
                                    .get()
                            == null) {
                        end(null, "not found: deleted, or never made");
                    }
                } catch (KubernetesClientException e) {
                    // unknown: the informer's events decide
                }
            }
        }

        private void end(TrainJob job, String why) {
            if (!once.compareAndSet(false, true)) {
                return;
            }
            last = job;
            absent = why;
            seenAt = System.nanoTime();
            ended = true;
            for (Runnable listener : listeners) {
                if (listeners.remove(listener)) {
                    listener.run();
                }
            }
        }

        boolean ended() {
            return ended;
        }

        /** Whether the job ended longer than {@code endGrace} ago. */
        boolean pastGrace() {
            return ended && System.nanoTime() - seenAt >= endGrace.toNanos();
        }

        /**
         * Runs {@code action} once the job has ended (now, if it has); never if the read ends first. Answers what takes
         * it back, so a wait that ends otherwise leaves nothing behind (a follow resumed for days waits many times).
         */
        Runnable whenEnded(Runnable action) {
            listeners.add(action);
            if (ended && listeners.remove(action)) {
                action.run();
            }
            return () -> listeners.remove(action);
        }

        /** How the job ended: its phase, or deleted. */
        String describe() {
            if (absent != null) {
                return absent;
            }
            TrainJob job = last;
            if (job == null) {
                return "not yet";
            }
            TrainJobPhase phase = TrainJobPhase.of(job);
            return phase.isTerminal() ? phase.displayName() : "deleted";
        }

        void stopLooking() {
            looking.cancel(false);
            listeners.clear();
        }
    }

    /** Runs a task on the read's executor, or here when the executor takes no more (it is shutting down). */
    private void dispatchOrRun(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /**
     * The pods to read. For the trainer step and all steps they are found from the job's pods once one of them runs;
     * all reads those JobSet makes later too.
     */
    private List<Selector> selectors(Request request, List<Pod> pods) {
        if (request.step().kind() == LogStep.Kind.ONE) {
            return List.of(new Selector(
                    request.step().replicatedJob(),
                    Integer.toString(request.step().index())));
        }
        if (request.step().kind() == LogStep.Kind.TRAINER) {
            return List.of(new Selector(trainerJob(request, pods), "0"));
        }
        Map<String, Selector> all = new LinkedHashMap<>();
        pods.stream()
                .filter(p -> TRAINER_JOBS.contains(label(p, JobSetLabels.REPLICATED_JOB)))
                // the Job controller writes a number: a pod labelled otherwise (by anyone who may make pods there) is
                // no pod of the job's, not a reason to fail every read of it
                .filter(p -> COMPLETION_INDEX
                        .matcher(String.valueOf(label(p, JobSetLabels.COMPLETION_INDEX)))
                        .matches())
                // a read that does not wait reads the pods that started and leaves out those still pending
                .filter(p -> request.waitsForStart() || started(p))
                .sorted(Comparator.comparing((Pod p) -> label(p, JobSetLabels.REPLICATED_JOB))
                        .thenComparing(p -> Integer.parseInt(label(p, JobSetLabels.COMPLETION_INDEX))))
                .forEach(p -> {
                    Selector selector = new Selector(
                            label(p, JobSetLabels.REPLICATED_JOB), label(p, JobSetLabels.COMPLETION_INDEX));
                    all.put(selector.step, selector);
                });
        return new ArrayList<>(all.values());
    }

    /**
     * Reads one pod's log, following it across broken streams, container restarts and pods replaced by JobSet. Each
     * step is a task on the executor, or a callback of the informer or the HTTP client handing on to one; between
     * them the reader holds no thread.
     */
    private final class PodReader {
        private final Request request;
        private final Selector selector;
        private final LogSink sink;
        private final JobEnd end;
        private final Position position = new Position();
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        /** Streams opened and not yet read to their end: closed when the reader stops or a read fails. */
        private final Set<PodLogStream> open = ConcurrentHashMap.newKeySet();

        private boolean first = true;
        /** Since when the stream breaks without delivering a line (System.nanoTime), or 0. */
        private long brokenSince;

        private Duration pause = RESUME_PAUSE;
        private int restartsSeen;
        private long deliveredBefore;
        /** The ended pod whose final log is read without timestamps, the query that reads it, lines delivered of it. */
        private String finalPod;

        private PodLogStream.Query finalQuery;
        private long finalDelivered;
        /** Batches of lines handed on: whether the reader moved since a look from another thread. */
        private volatile long batches;
        /** Whether the reader waits for the sink to take more (a slow receiver), not for the pod. */
        private volatile boolean waitingOnSink;
        /** The pod read last, and whether a read of the step's log ended cleanly. */
        private String lastPod;

        private boolean lastSucceeded;
        private boolean readToAnEnd;
        /**
         * Pods whose container failed for good and whose log was read to its end: with restart policy Never the Job
         * controller makes a new pod for the step, which is read next; the job's end says none will come.
         */
        private final Set<String> failedPods = ConcurrentHashMap.newKeySet();

        private volatile boolean stopped;
        private volatile CompletableFuture<List<Pod>> podsFound;

        PodReader(Request request, Selector selector, LogSink sink, JobEnd end) {
            this.request = request;
            this.selector = selector;
            this.sink = sink;
            this.end = end;
        }

        CompletableFuture<Void> start() {
            Runnable stopTimingTheEnd = end.whenEnded(() -> endGraceFrom(batches));
            done.whenComplete((ignored, failure) -> stopTimingTheEnd.run());
            dispatch(this::next);
            return done;
        }

        /**
         * Once the job has ended: a reader still at it {@code endGrace} later fails naming its pod, unless lines came
         * meanwhile (a final log still being read); a stream open without a line after the job's end (a pod stuck
         * terminating) would otherwise keep the follow open for good.
         */
        private void endGraceFrom(long deliveredThen) {
            // batches, not lines: read here on another thread, so volatile, and counted per batch on the hot path
            CompletableFuture.delayedExecutor(endGrace.toMillis(), TimeUnit.MILLISECONDS, this::dispatch)
                    .execute(() -> {
                        if (done.isDone()) {
                            return;
                        }
                        long deliveredNow = batches;
                        if (deliveredNow != deliveredThen || waitingOnSink) {
                            // lines came, or are held back by a receiver that takes them slowly: the pod is not the one
                            // stuck
                            endGraceFrom(deliveredNow);
                            return;
                        }
                        done.completeExceptionally(new LogIncompleteException(
                                request.namespace(),
                                request.jobName(),
                                selector.step,
                                lastPod == null ? "none started" : lastPod,
                                endGrace));
                        closeStreams();
                    });
        }

        void stop() {
            stopped = true;
            CompletableFuture<List<Pod>> waiting = podsFound;
            if (waiting != null) {
                waiting.cancel(false);
            }
            closeStreams();
            done.cancel(false);
        }

        /**
         * Waits for the step's newest pod to leave Pending, then reads it once. The job's end ends the wait: a pod
         * started meanwhile is still read; with none left, a step read before was read to its end (its stream ended
         * before the pod went), one never read fails with {@link LogGoneException}.
         */
        private void next() {
            if (stopped) {
                return;
            }
            // the start timeout bounds the wait for the first pod of a step read alone (all's read waited for its
            // first pod itself); a later pod is waited for until the job ends
            boolean boundedByStart = lastPod == null && request.step().kind() != LogStep.Kind.ALL;
            CompletableFuture<List<Pod>> found = awaitPods(
                    request,
                    selector.labels(),
                    end,
                    boundedByStart,
                    candidates -> candidates.stream().anyMatch(this::unreadAndStarted));
            podsFound = found;
            if (stopped) {
                found.cancel(false);
            }
            found.whenComplete((pods, failure) -> {
                Throwable startFailure = failure == null ? null : startFailure(failure, request, selector.labels());
                if (readToAnEnd
                        && (startFailure instanceof LogNotStartedException
                                || startFailure instanceof LogGoneException)) {
                    // a read that does not wait, and no pod after the one read to its end: that is the log there is
                    done.complete(null);
                } else if (startFailure != null) {
                    done.completeExceptionally(startFailure);
                } else if (pods != null) {
                    dispatch(() -> readOnce(current(pods)).whenComplete(this::afterRead));
                } else {
                    // the job ended: a pod the informer has not shown yet is asked of the API server; with none left
                    // to read, a step read to an end is done, one never read is gone
                    dispatch(() -> {
                        List<Pod> unread = startedPods(request, selector.labels()).stream()
                                .filter(this::unreadAndStarted)
                                .toList();
                        if (!unread.isEmpty()) {
                            readOnce(current(unread)).whenComplete(this::afterRead);
                        } else if (readToAnEnd) {
                            done.complete(null);
                        } else {
                            done.completeExceptionally(new LogGoneException(
                                    request.namespace(), request.jobName(), selector.step, end.describe()));
                        }
                    });
                }
            });
        }

        /**
         * Reads the pod's log once: a restarted container's previous log first (follow), then its current one, from the
         * position when resuming.
         */
        private CompletableFuture<Boolean> readOnce(Pod pod) {
            String container = container(pod, selector);
            boolean endedBeforeRead = ended(pod, container);
            lastSucceeded = endedBeforeRead && succeeded(pod, container);
            deliveredBefore = position.delivered;
            String podName = pod.getMetadata().getName();
            lastPod = podName;
            int restarts = restartCount(pod, container);
            CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
            if (request.follow() && restarts > restartsSeen) {
                // the container crashed and was restarted (JobSet restarts OnFailure): the end of the crashed attempt
                // is only in its previous log
                LineFilter filter = new LineFilter(position);
                previous = open(podName, query(container, false, true, position, null, null))
                        .thenCompose(stream ->
                                drain(stream, lines -> filter.deliver(lines, sink, selector.step), Long.MAX_VALUE))
                        .thenRun(() -> restartsSeen = restarts);
            }
            return previous.thenComposeAsync(
                            ignored -> {
                                boolean resumed = position.started();
                                // sinceSeconds counts back from each read's now: a read again would not start where the
                                // first did
                                if (request.follow()
                                        && endedBeforeRead
                                        && !resumed
                                        && !(first && request.sinceSeconds() != null)) {
                                    return readFinal(podName, container);
                                }
                                PodLogStream.Query query = query(
                                        container,
                                        request.follow(),
                                        false,
                                        position,
                                        first ? request.tailLines() : null,
                                        first ? request.sinceSeconds() : null);
                                first = false;
                                return open(podName, query).thenCompose(current -> {
                                    if (!query.timestamps()) {
                                        return drain(current, lines -> deliverAsRead(lines.texts()), Long.MAX_VALUE);
                                    }
                                    if (resumed) {
                                        return drainResumed(current, podName, container);
                                    }
                                    LineFilter filter = new LineFilter(position);
                                    return drain(
                                            current,
                                            lines -> filter.deliver(lines, sink, selector.step),
                                            Long.MAX_VALUE);
                                });
                            },
                            this::dispatch)
                    .thenApply(ignored -> endedBeforeRead);
        }

        /**
         * Reads the final log of a container that had ended (no new lines will come, so none need a timestamp to be
         * found again): a broken read is read again, skipping the lines delivered.
         */
        private CompletableFuture<Void> readFinal(String podName, String container) {
            if (!podName.equals(finalPod)) {
                finalPod = podName;
                finalQuery = query(container, false, false, position, first ? request.tailLines() : null, null);
                finalDelivered = 0;
            }
            first = false;
            long[] toSkip = {finalDelivered};
            return open(podName, finalQuery)
                    .thenCompose(stream -> drain(
                            stream,
                            lines -> {
                                List<String> texts = lines.texts();
                                int from = (int) Math.min(toSkip[0], texts.size());
                                toSkip[0] -= from;
                                // a view only while lines are skipped: a view of every batch made the bench's follow a
                                // fifth slower
                                List<String> fresh = from == 0 ? texts : texts.subList(from, texts.size());
                                deliverAsRead(fresh);
                                finalDelivered += fresh.size();
                                position.delivered += fresh.size();
                            },
                            Long.MAX_VALUE));
        }

        /**
         * After one read: done when not following or the pod had ended; a broken stream is resumed from the last line
         * delivered, backing off while the API server is away; only a stream that delivers nothing for MAX_OUTAGE is
         * given up on.
         */
        private void afterRead(Boolean endedBeforeRead, Throwable failure) {
            boolean succeeded = lastSucceeded;
            closeStreams();
            if (stopped) {
                return;
            }
            if (failure == null) {
                brokenSince = 0;
                readToAnEnd = true;
                if (!request.follow() || endedBeforeRead && (succeeded || end.ended())) {
                    done.complete(null);
                } else if (endedBeforeRead) {
                    // failed for good: the Job controller may make a new pod for the step (restart policy Never)
                    failedPods.add(lastPod);
                    next();
                } else if (end.pastGrace()) {
                    done.completeExceptionally(new LogIncompleteException(
                            request.namespace(), request.jobName(), selector.step, lastPod, endGrace));
                } else {
                    // the stream ended but the pod is not reported ended (yet): look again, less often while nothing
                    // comes, so a status written late or never costs neither a busy loop nor a follow without end
                    boolean nothingCame = position.delivered == deliveredBefore;
                    Duration wait = nothingCame ? pause : RESUME_PAUSE;
                    pause = nothingCame ? longer(pause) : RESUME_PAUSE;
                    later(wait);
                }
                return;
            }
            Throwable cause = unwrap(failure);
            if (cause instanceof SinkFailedException e) {
                // the receiver of the lines failed (a closed HTTP response, a failing destination route): that is not
                // a broken stream, and resuming would only skip the line it refused
                done.completeExceptionally(e.sinkFailure());
                return;
            }
            boolean delivered = position.delivered != deliveredBefore;
            if (delivered || brokenSince == 0) {
                brokenSince = System.nanoTime();
                pause = RESUME_PAUSE;
            }
            // a refusal (401, 403 on pods/log) is not an outage: waiting would not change it (a 404 is: JobSet
            // replaced the pod, which the next look finds by its labels)
            boolean refused =
                    cause instanceof KubernetesClientException k && (k.getCode() == 401 || k.getCode() == 403);
            boolean broken = cause instanceof IOException || cause instanceof RuntimeException;
            if (!request.follow() || refused || !broken || System.nanoTime() - brokenSince > MAX_OUTAGE.toNanos()) {
                done.completeExceptionally(cause instanceof IOException io ? new UncheckedIOException(io) : cause);
                return;
            }
            try (var log = TrainJobMdc.of(request.namespace(), request.jobName())) {
                LOG.debug(
                        "Log stream of {} broke, resuming in {} ms: {}",
                        selector.step,
                        pause.toMillis(),
                        cause.getMessage());
            }
            later(pause);
            pause = longer(pause);
        }

        private void later(Duration delay) {
            CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS, this::dispatch)
                    .execute(this::next);
        }

        /**
         * A resumed follow of the current container: the container may have restarted since the pod was looked at (the
         * kubelet reports the restart count after the new container's log is there), so before the first new line of
         * the current container, the end of the previous container's log that is newer than what was delivered comes
         * first. Without a restart there is no previous log (the API server answers 400) or nothing in it is newer.
         */
        private CompletableFuture<Void> drainResumed(PodLogStream current, String podName, String container) {
            PodLogStream.Lines[] first = new PodLogStream.Lines[1];
            return drain(current, lines -> first[0] = lines, 1)
                    .thenComposeAsync(
                            ignored -> {
                                if (first[0] == null) {
                                    return CompletableFuture.completedFuture(null);
                                }
                                Instant firstTime = timeOf(first[0].stamps().get(0));
                                CompletableFuture<Void> before = CompletableFuture.completedFuture(null);
                                if (firstTime != null && firstTime.isAfter(position.lastTime())) {
                                    LineFilter previousFilter = new LineFilter(position);
                                    before = open(podName, query(container, false, true, position, null, null))
                                            .thenCompose(previous -> drain(
                                                    previous,
                                                    lines -> {
                                                        for (int i = 0;
                                                                i
                                                                        < lines.texts()
                                                                                .size();
                                                                i++) {
                                                            Instant time = timeOf(lines.stamps()
                                                                    .get(i));
                                                            if (time != null && time.isBefore(firstTime)) {
                                                                previousFilter.deliver(
                                                                        lines.stamps()
                                                                                .get(i),
                                                                        lines.texts()
                                                                                .get(i),
                                                                        sink,
                                                                        selector.step);
                                                            }
                                                        }
                                                    },
                                                    Long.MAX_VALUE))
                                            .exceptionally(failure -> {
                                                // no previous container (400): nothing to add
                                                if (unwrap(failure) instanceof KubernetesClientException) {
                                                    return null;
                                                }
                                                throw failure instanceof CompletionException c
                                                        ? c
                                                        : new CompletionException(failure);
                                            });
                                }
                                // what the previous log delivered is older than the current container's lines: nothing
                                // of those to
                                // skip; the filter is made once it has been read
                                return before.thenComposeAsync(
                                        none -> {
                                            LineFilter filter = new LineFilter(position);
                                            filter.deliver(first[0], sink, selector.step);
                                            return drain(
                                                    current,
                                                    lines -> filter.deliver(lines, sink, selector.step),
                                                    Long.MAX_VALUE);
                                        },
                                        this::dispatch);
                            },
                            this::dispatch);
        }

        /** A read that is not resumed, so without timestamps: its lines as they are. */
        private void deliverAsRead(List<String> lines) {
            try {
                for (String line : lines) {
                    sink.line(selector.step, line);
                }
            } catch (RuntimeException e) {
                throw new SinkFailedException(e);
            }
        }

        private CompletableFuture<PodLogStream> open(String pod, PodLogStream.Query query) {
            return PodLogStream.open(client, request.namespace(), pod, query).thenApply(stream -> {
                open.add(stream);
                if (stopped) {
                    stream.close();
                }
                return stream;
            });
        }

        private void closeStreams() {
            open.forEach(PodLogStream::close);
            open.clear();
        }

        /**
         * Hands up to {@code limit} lines of the stream to {@code handler}, a batch at a time as they come (each handler
         * loops over its batch itself: a call per line from here, one call site for every kind of handler, was not
         * inlined once several kinds had run, and a follow of all ranks read 68 MB/s instead of 117 in the bench); the
         * sink hears when no more are at hand, and before a broken stream is resumed, so what it holds back is neither
         * late nor lost.
         */
        private CompletableFuture<Void> drain(PodLogStream stream, Consumer<PodLogStream.Lines> handler, long limit) {
            Drain drain = new Drain(stream, handler, limit);
            dispatch(drain);
            return drain.ended;
        }

        /** One stream's lines to a handler: a task that runs while lines are at hand and leaves itself to be run again. */
        private final class Drain implements Runnable {
            private final PodLogStream stream;
            private final Consumer<PodLogStream.Lines> handler;
            private final long limit;
            private final CompletableFuture<Void> ended = new CompletableFuture<>();
            private long taken;
            private boolean unannounced;

            Drain(PodLogStream stream, Consumer<PodLogStream.Lines> handler, long limit) {
                this.stream = stream;
                this.handler = handler;
                this.limit = limit;
            }

            @Override
            public void run() {
                waitingOnSink = false;
                try {
                    while (taken < limit) {
                        PodLogStream.Lines lines = stream.take((int) Math.min(MAX_TAKE, limit - taken));
                        if (!lines.texts().isEmpty()) {
                            handler.accept(lines);
                            batches++;
                        }
                        taken += lines.texts().size();
                        unannounced |= !lines.texts().isEmpty();
                        if (!lines.more() && unannounced) {
                            unannounced = false;
                            idle(sink);
                        }
                        if (!lines.texts().isEmpty() && !ready(this)) {
                            waitingOnSink = true;
                            return;
                        }
                        if (!lines.more()) {
                            if (stream.finished()) {
                                IOException failure = stream.failure();
                                if (failure == null) {
                                    open.remove(stream);
                                    ended.complete(null);
                                } else {
                                    ended.completeExceptionally(failure);
                                }
                                return;
                            }
                            if (stream.whenMore(() -> dispatch(this))) {
                                return;
                            }
                        }
                    }
                    ended.complete(null);
                } catch (RuntimeException e) {
                    ended.completeExceptionally(e);
                }
            }
        }

        private boolean ready(Runnable resume) {
            try {
                return sink.ready(() -> dispatch(resume));
            } catch (RuntimeException e) {
                throw new SinkFailedException(e);
            }
        }

        /** Runs a step of the reader on the executor; an executor that no longer takes tasks ends the read. */
        private void dispatch(Runnable task) {
            try {
                executor.execute(() -> {
                    try {
                        task.run();
                    } catch (RuntimeException | Error e) {
                        done.completeExceptionally(e);
                    }
                });
            } catch (RejectedExecutionException e) {
                done.completeExceptionally(e);
            }
        }

        private boolean unreadAndStarted(Pod pod) {
            return started(pod) && !failedPods.contains(pod.getMetadata().getName());
        }

        /**
         * The step's newest pod that left Pending, as it is now: the informer's copy may lag behind a restart whose
         * crashed attempt's log must be read first.
         */
        private Pod current(List<Pod> pods) {
            Pod newest = pods.stream()
                    .filter(this::unreadAndStarted)
                    .max(Comparator.comparing(p -> p.getMetadata().getCreationTimestamp() == null
                            ? ""
                            : p.getMetadata().getCreationTimestamp()))
                    .orElseThrow();
            Pod current;
            try {
                current = client.pods()
                        .inNamespace(request.namespace())
                        .withName(newest.getMetadata().getName())
                        .get();
            } catch (KubernetesClientException e) {
                // the API server is away (a resumed follow during an outage): the informer's copy will do, and the
                // log read that follows meets the same outage and backs off
                return newest;
            }
            return current != null && started(current) ? current : newest;
        }
    }

    /**
     * Where a reader of one pod is: the timestamp of the last line delivered (where a resumed read starts) and how many
     * lines with exactly that timestamp were delivered. A resumed read starts at that second (the API server's
     * sinceTime precision) and skips what was delivered, so no line is repeated or lost. The timestamp is kept as the
     * kubelet wrote it and parsed only when a read resumes: parsing every line was most of a read's cost.
     */
    private static final class Position {
        /** The timestamp of the last line delivered, as the kubelet wrote it; null before the first. */
        private String lastStamp;

        private Instant lastTime;
        int deliveredAtLastTime;
        /** Lines delivered in all: a read that moved it on was not an outage. */
        long delivered;

        boolean started() {
            return lastStamp != null;
        }

        /** The timestamp of the last line delivered; null before the first. */
        Instant lastTime() {
            if (lastTime == null && lastStamp != null) {
                lastTime = parseTime(lastStamp);
            }
            return lastTime;
        }

        /** A line with this timestamp was delivered (the stream hands on one String for a run of equal ones). */
        void delivered(String stamp) {
            if (stamp == lastStamp || stamp.equals(lastStamp)) {
                deliveredAtLastTime++;
            } else {
                lastStamp = stamp;
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
    private static PodLogStream.Query query(
            String container,
            boolean follow,
            boolean previous,
            Position position,
            Integer tailLines,
            Integer sinceSeconds) {
        if (position.started()) {
            return new PodLogStream.Query(
                    container,
                    follow,
                    previous,
                    position.lastTime()
                            .truncatedTo(ChronoUnit.SECONDS)
                            .atOffset(ZoneOffset.UTC)
                            .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                    null,
                    null);
        }
        return new PodLogStream.Query(
                container, follow, previous, null, tailLines, tailLines == null ? sinceSeconds : null);
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
        private final LogSink shared;
        private final LineBatch batch;

        Batches(LogSink shared) {
            this.shared = shared;
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

        @Override
        public boolean ready(Runnable resume) {
            synchronized (shared) {
                return shared.ready(resume);
            }
        }
    }

    private static Instant timeOf(String stamp) {
        return stamp == null ? null : parseTime(stamp);
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

        void deliver(PodLogStream.Lines lines, LogSink sink, String step) {
            for (int i = 0; i < lines.texts().size(); i++) {
                deliver(lines.stamps().get(i), lines.texts().get(i), sink, step);
            }
        }

        /** Delivers a line that came after {@code stamp} (null: it came without one). */
        void deliver(String stamp, String text, LogSink sink, String step) {
            if (stamp != null && !caughtUp) {
                Instant time = parseTime(stamp);
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
            if (stamp != null) {
                position.delivered(stamp);
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
        return pod.getStatus().getContainerStatuses().stream()
                .filter(c -> container.equals(c.getName()))
                .map(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
                .findFirst()
                .orElse(0);
    }

    /**
     * Waits on the namespace's pod informer for the job's pods with these labels to meet the condition, for at most
     * the request's start timeout; cancelling the answer stops the informer looking. A read that does not wait has
     * the answer of the informer's first look: its cache is complete once it is handed out, so a pod that is not there
     * as started has not started.
     */
    private CompletableFuture<List<Pod>> awaitPods(
            Request request,
            Map<String, String> labels,
            JobEnd end,
            boolean boundedByStart,
            Predicate<List<Pod>> condition) {
        CompletableFuture<List<Pod>> found =
                informers.awaitPods(request.namespace(), request.jobName(), labels, condition);
        if (request.waitsForStart()) {
            // null: the job ended first, and no pod will come
            Runnable stopWaitingForTheEnd = end.whenEnded(() -> found.complete(null));
            found.whenComplete((pods, failure) -> stopWaitingForTheEnd.run());
            // a pod the read waits for at its start: at most the start timeout; later ones (a node made in a later
            // batch, a pod the Job controller makes in place of a failed one) until the job ends
            return boundedByStart ? found.orTimeout(request.startTimeout().toMillis(), TimeUnit.MILLISECONDS) : found;
        }
        // the first look runs before awaitPods returns: not done by then, it is cancelled (and stops looking); a pod
        // that started in between completed it, and the cancel fails
        if (found.cancel(false)) {
            return CompletableFuture.failedFuture(notStarted(request, labels, end));
        }
        return found;
    }

    /**
     * No pod with these labels has started, and the read does not wait: the job has ended and none is left (its log
     * is gone), or none has started yet.
     */
    private RuntimeException notStarted(Request request, Map<String, String> labels, JobEnd end) {
        boolean noneLeft =
                informers.podsOf(request.namespace(), new TrainJobRef(request.namespace(), request.jobName())).stream()
                        .noneMatch(p -> matches(p, labels));
        if (end.ended() && noneLeft) {
            String step = labels.isEmpty()
                    ? request.step().kind().name().toLowerCase(Locale.ROOT)
                    : LogStep.stepName(
                            labels.get(JobSetLabels.REPLICATED_JOB), labels.get(JobSetLabels.COMPLETION_INDEX));
            return new LogGoneException(request.namespace(), request.jobName(), step, end.describe());
        }
        return new LogNotStartedException(request.namespace(), request.jobName(), selector(request, labels));
    }

    /** Why waiting for pods failed: the start timeout named with the pods waited for, or what else ended it. */
    private static Throwable startFailure(Throwable failure, Request request, Map<String, String> labels) {
        Throwable cause = unwrap(failure);
        if (cause instanceof TimeoutException) {
            return new LogStartTimeoutException(
                    request.namespace(), request.jobName(), selector(request, labels), request.startTimeout());
        }
        return cause;
    }

    /** The labels of the pods a read looks for, as a failure names them. */
    private static Map<String, String> selector(Request request, Map<String, String> labels) {
        Map<String, String> selector = new LinkedHashMap<>(labels);
        selector.put(JobSetLabels.JOBSET_NAME, request.jobName());
        return selector;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The pause after {@code pause} while a stream keeps breaking or ending with nothing: doubled, at most 5 s. */
    private static Duration longer(Duration pause) {
        Duration doubled = pause.multipliedBy(2);
        return doubled.compareTo(MAX_RESUME_PAUSE) > 0 ? MAX_RESUME_PAUSE : doubled;
    }

    /**
     * Whether the pod's container has ended for good, so its log is final: the pod's phase is Succeeded or Failed, or
     * the container is terminated and the kubelet will not restart it (restart policy Never, or OnFailure after exit
     * code 0; Always, the API server's default, restarts it). The container's state is written before, or with, the
     * phase: a phase written late (or lost, until the kubelet's status manager resyncs) must not keep a follow open.
     */
    static boolean ended(Pod pod, String container) {
        if (pod.getStatus() == null) {
            return false;
        }
        if (TERMINAL.contains(pod.getStatus().getPhase())) {
            return true;
        }
        var terminated = pod.getStatus().getContainerStatuses().stream()
                .filter(c -> container.equals(c.getName()))
                .findFirst()
                .map(c -> c.getState() == null ? null : c.getState().getTerminated())
                .orElse(null);
        if (terminated == null) {
            return false;
        }
        String policy = pod.getSpec() == null || pod.getSpec().getRestartPolicy() == null
                ? "Always"
                : pod.getSpec().getRestartPolicy();
        return switch (policy) {
            case "Never" -> true;
            case "OnFailure" -> terminated.getExitCode() != null && terminated.getExitCode() == 0;
            default -> false;
        };
    }

    /**
     * The replicated job the trainer step reads: a launcher that runs in a job of its own (mpirun's {@code launcher})
     * logs for the whole job, else node 0 does. Which launcher a TrainJob has is what the component recorded on it at
     * create; for a job made otherwise, what its pods show. Never the pods alone when it is recorded: an MPI launcher's
     * pod starts only once the node pods are ready, so a read that looked at the first pods read a node's sshd.
     */
    private String trainerJob(Request request, List<Pod> pods) {
        TrainJob job = informers
                .trainJobsServing(request.namespace())
                .getStore()
                .getByKey(request.namespace() + "/" + request.jobName());
        String recorded = job == null || job.getMetadata().getAnnotations() == null
                ? null
                : job.getMetadata().getAnnotations().get(TrainJobMetadata.LAUNCHER_ANNOTATION);
        for (Launcher launcher : Launcher.values()) {
            if (launcher.optionValue().equals(recorded)) {
                return launcher.replicatedJob();
            }
        }
        return pods.stream()
                .map(p -> label(p, JobSetLabels.REPLICATED_JOB))
                .filter(replicatedJob ->
                        TRAINER_JOBS.contains(replicatedJob) && !Launcher.DEFAULT_REPLICATED_JOB.equals(replicatedJob))
                .findFirst()
                .orElse(Launcher.DEFAULT_REPLICATED_JOB);
    }

    /** Whether the pod's container ended with exit code 0, or the pod Succeeded. */
    private static boolean succeeded(Pod pod, String container) {
        if ("Succeeded".equals(pod.getStatus().getPhase())) {
            return true;
        }
        return pod.getStatus().getContainerStatuses().stream()
                .filter(c -> container.equals(c.getName()))
                .map(c -> c.getState() == null ? null : c.getState().getTerminated())
                .anyMatch(t -> t != null && t.getExitCode() != null && t.getExitCode() == 0);
    }

    /**
     * Whether a pod is one a read of these labels reads: with none (trainer, all), a pod running user code; else one
     * carrying them.
     */
    private static boolean matches(Pod pod, Map<String, String> labels) {
        if (labels.isEmpty()) {
            return readsUserCode(pod);
        }
        Map<String, String> own = pod.getMetadata().getLabels();
        return own != null && own.entrySet().containsAll(labels.entrySet());
    }

    /** Whether the pod runs user code (a node or a launcher), not an initializer. */
    private static boolean readsUserCode(Pod pod) {
        return TRAINER_JOBS.contains(label(pod, JobSetLabels.REPLICATED_JOB));
    }

    private static boolean started(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getPhase() != null
                && !"Pending".equals(pod.getStatus().getPhase());
    }

    private static String container(Pod pod, Selector selector) {
        String wanted = TRAINER_JOBS.contains(selector.replicatedJob)
                ? TrainingRuntimeDescriptor.TRAINER_CONTAINER
                : selector.replicatedJob;
        return pod.getSpec().getContainers().stream()
                .map(c -> c.getName())
                .filter(wanted::equals)
                .findFirst()
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
        return pod.getMetadata().getLabels() == null
                ? null
                : pod.getMetadata().getLabels().get(key);
    }

    private record Selector(String replicatedJob, String index, String step) {
        Selector(String replicatedJob, String index) {
            this(replicatedJob, index, LogStep.stepName(replicatedJob, index));
        }

        Map<String, String> labels() {
            return Map.of(JobSetLabels.REPLICATED_JOB, replicatedJob, JobSetLabels.COMPLETION_INDEX, index);
        }
    }
}
