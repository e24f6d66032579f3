package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.AccessReviewer;
import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.runtime.LauncherRule;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceCache;
import io.camelkubeflow.trainer.workspace.WorkspaceFetcher;
import io.camelkubeflow.trainer.workspace.WorkspaceLimits;
import io.camelkubeflow.trainer.workspace.WorkspaceSources;
import io.camelkubeflow.trainer.workspace.WorkspaceStaging;
import io.camelkubeflow.trainer.workspace.WorkspaceStore;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates TrainJobs idempotently. Everything is checked (request, runtime, launcher, command) before the first write;
 * a job of the same name made for the same idempotency key from the same request is adopted, one made for another
 * key or from a different request is a {@link TrainJobConflictException}. A create is one request, whatever the
 * payload (an inline script travels inside the TrainJob), so concurrent attempts meet only at the create itself.
 */
public class TrainJobSubmitter {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobSubmitter.class);

    private final KubernetesClient client;
    private final ApiRetry retry;
    private AccessReviewer accessReviewer;
    private final RequestPolicy policy;
    private final RuntimeLookup runtimes;
    private WorkspaceStore workspaceStore;
    private WorkspaceFetcher workspaceFetcher;
    /** A project retrained again and again is read once while it does not change. */
    private final WorkspaceCache workspaces = new WorkspaceCache(16, 256L << 20);

    public TrainJobSubmitter(KubernetesClient client) {
        this(client, ApiRetry.DEFAULT);
    }

    /** @param retry how API calls that fail with 429 or 5xx are retried (not at all when the client retries itself) */
    public TrainJobSubmitter(KubernetesClient client, ApiRetry retry) {
        this(client, retry, null, RuntimeLookup.direct(client, retry));
    }

    /**
     * @param policy   what requests may ask for; null: anything the validator accepts
     * @param runtimes where runtimes are found (a watched cache saves a GET per create)
     */
    public TrainJobSubmitter(KubernetesClient client, ApiRetry retry, RequestPolicy policy, RuntimeLookup runtimes) {
        this.client = client;
        this.retry = retry.forClient(client);
        this.policy = policy;
        this.runtimes = runtimes;
        this.accessReviewer = new AccessReviewer(client, retry);
    }

    /** Reviews callers' access with this reviewer (one sharing its kept answers), set before the submitter is used. */
    public TrainJobSubmitter accessReviewer(AccessReviewer reviewer) {
        this.accessReviewer = reviewer;
        return this;
    }

    /**
     * Keeps workspaces too large for a ConfigMap in this store (set before the submitter is used); without one they
     * are refused.
     */
    public TrainJobSubmitter workspaceStore(WorkspaceStore store) {
        this.workspaceStore = store;
        return this;
    }

    /** Fetches the workspaces a request names by a location of the fetcher's kind (set before the submitter is used). */
    public TrainJobSubmitter workspaceFetcher(WorkspaceFetcher fetcher) {
        this.workspaceFetcher = fetcher;
        return this;
    }

    /**
     * Builds the TrainJob for a request without writing anything: what {@link #submit} would create.
     *
     * @param defaultNamespace the namespace when the request names none
     */
    public PreparedTrainJob prepare(TrainRequest request, String defaultNamespace) {
        TrainRequestValidator.validate(request);
        if (policy != null) {
            // before the workspace is read: a request must not make the app read its disk or fetch a URL it may not
            policy.checkWorkspaceSource(request);
            policy.applyDefaults(request);
        }
        if (request.workspace() != null && request.workspaceContent() == null) {
            request.workspaceContent(WorkspaceSources.of(
                    request.workspace(), "workspace", WorkspaceLimits.DEFAULT, workspaces, workspaceFetcher));
        }
        Workspace workspace = request.workspaceContent();
        if (workspace != null
                && workspaceStore != null
                && request.workspaceUrl() == null
                && !WorkspaceStaging.fitsInConfigMap(workspace)) {
            // signed here, without a request; the archive is stored on submit, before the job exists
            request.workspaceUrl(workspaceStore.readUrl(workspace, WorkspaceStore.DEFAULT_VALIDITY));
        }
        String namespace = request.namespace() != null ? request.namespace() : defaultNamespace;
        TrainingRuntimeDescriptor runtime = lookupRuntime(request, namespace);
        String name = request.jobName() != null
                ? request.jobName()
                : TrainJobMetadata.nameFor(request.jobNamePrefix(), keyOrRandom(request));
        return TrainJobFactory.build(request, runtime, namespace, name, request.idempotencyKey());
    }

    /**
     * Creates (or adopts) the TrainJob a request asks for. A request with a caller acts within the caller's rights:
     * each access the job needs ({@link TrainJobAccess}) is reviewed with the API server first, and a denial is an
     * {@link AccessDeniedException} before anything is written; then the request policy, if any, is applied
     * ({@link PolicyViolationException}).
     */
    public SubmitResult submit(TrainRequest request, String defaultNamespace) {
        if (request.caller() != null) {
            // before the runtime is looked up or a workspace read: a caller who may not create TrainJobs there learns
            // nothing of the cluster (not even whether a runtime exists) and costs it nothing but this review
            accessReviewer.check(
                    request.caller(),
                    TrainJobAccess.create(KubernetesNames.namespace(
                            "namespace", request.namespace() != null ? request.namespace() : defaultNamespace)));
        }
        PreparedTrainJob prepared = prepare(request, defaultNamespace);
        if (request.caller() != null) {
            accessReviewer.check(request.caller(), TrainJobAccess.referenced(prepared));
        }
        if (policy != null) {
            policy.check(request, prepared);
        }
        TrainJob wanted = prepared.trainJob();
        String namespace = wanted.getMetadata().getNamespace();
        String name = wanted.getMetadata().getName();

        if (request.skipIfRunning() || request.maxInFlight() != null) {
            // a job that exists already must not count against the checks below; a plain create needs no such look
            // first: the server answers 409 and the job is adopted below
            TrainJob existing = retry.call(
                    "GET TrainJob " + namespace + "/" + name,
                    () -> trainJobs(namespace).withName(name).get());
            if (existing != null) {
                return adopt(existing, prepared, request);
            }
        }
        if (request.skipIfRunning()) {
            TrainJob running =
                    unfinished(
                                    namespace,
                                    TrainJobMetadata.RUN_KEY_LABEL,
                                    TrainJobMetadata.runKeyLabel(request.runKey()))
                            .stream()
                            .findFirst()
                            .orElse(null);
            if (running != null) {
                try (var log = TrainJobMdc.of(namespace, running.getMetadata().getName())) {
                    LOG.info(
                            "Skipped a TrainJob for run key {}: {}/{} is still running",
                            request.runKey(),
                            namespace,
                            running.getMetadata().getName());
                }
                return new SubmitResult(running, false, true, prepared.decision(), request.idempotencyKey());
            }
        }
        if (request.maxInFlight() != null) {
            String group = wanted.getMetadata().getLabels().get(TrainJobMetadata.GROUP_LABEL);
            int inFlight =
                    unfinished(namespace, TrainJobMetadata.GROUP_LABEL, group).size();
            if (inFlight >= request.maxInFlight()) {
                throw new TrainJobCapacityException(namespace, group, inFlight, request.maxInFlight());
            }
        }
        if (prepared.workspaceUrl() != null) {
            // before the job: its pods fetch the archive as soon as they start
            workspaceStore.store(prepared.workspace());
        }
        TrainJob created;
        try {
            created = retry.call(
                    "create TrainJob " + namespace + "/" + name,
                    () -> trainJobs(namespace).resource(wanted).create());
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                // the job exists: made by an earlier attempt of this request, or by a concurrent one; adopted when
                // it was made for this key from the same request
                TrainJob winner = retry.call(
                        "GET TrainJob " + namespace + "/" + name,
                        () -> trainJobs(namespace).withName(name).get());
                if (winner != null) {
                    return adopt(winner, prepared, request);
                }
            }
            throw e;
        }
        if (prepared.workspaceInConfigMap()) {
            stageWorkspace(prepared.workspace(), created);
        }
        try (var log = TrainJobMdc.of(namespace, name)) {
            if (prepared.decision().rule() == LauncherRule.FALLBACK) {
                LOG.warn(
                        "Created TrainJob {}/{} with a FALLBACK launcher: {}",
                        namespace,
                        name,
                        prepared.decision().reason());
            } else {
                LOG.info(
                        "Created TrainJob {}/{} on {} with launcher {} ({})",
                        namespace,
                        name,
                        prepared.runtime().describe(),
                        prepared.decision().launcher().optionValue(),
                        prepared.decision().reason());
            }
        }
        return new SubmitResult(created, false, false, prepared.decision(), request.idempotencyKey());
    }

    private SubmitResult adopt(TrainJob existing, PreparedTrainJob prepared, TrainRequest request) {
        String key = request.idempotencyKey();
        String name = existing.getMetadata().getName();
        Map<String, String> annotations = existing.getMetadata().getAnnotations();
        String existingHash =
                annotations == null ? null : annotations.get(TrainJobMetadata.IDEMPOTENCY_HASH_ANNOTATION);
        if (key == null
                || !Objects.equals(
                        existingHash,
                        TrainJobMetadata.sha256(TrainJobMetadata.scopedKey(request.idempotencyScope(), key)))) {
            throw new TrainJobConflictException(
                    name,
                    existing.getMetadata().getNamespace(),
                    key == null
                            ? "it exists and this request has no idempotency key to prove it is the same job; set"
                                    + " 'idempotencyKey' or choose another 'jobName'"
                            : "it was created for another idempotency key (which this answer does not tell: it may be"
                                    + " another caller's); choose another 'jobName' or 'jobNamePrefix'");
        }
        String recorded = annotations.get(TrainJobMetadata.REQUEST_FINGERPRINT_ANNOTATION);
        if (recorded != null) {
            // the prepared job carries this request's fingerprint already (TrainJobFactory recorded it)
            List<String> differing = RequestFingerprint.differing(
                    recorded,
                    prepared.trainJob()
                            .getMetadata()
                            .getAnnotations()
                            .get(TrainJobMetadata.REQUEST_FINGERPRINT_ANNOTATION));
            if (!differing.isEmpty()) {
                throw new TrainJobConflictException(
                        name,
                        existing.getMetadata().getNamespace(),
                        "it was made for"
                                + " idempotency key '" + key + "' from a different request, which differs in "
                                + String.join(", ", differing)
                                + "; send the same request again, or use a new idempotency"
                                + " key for a new TrainJob",
                        differing);
            }
        }
        if (prepared.workspaceInConfigMap()) {
            new WorkspaceStaging(client, retry).stageForAdopted(prepared.workspace(), existing);
        }
        try (var log = TrainJobMdc.of(existing.getMetadata().getNamespace(), name)) {
            LOG.info(
                    "Adopted existing TrainJob {}/{} for idempotency key {}",
                    existing.getMetadata().getNamespace(),
                    name,
                    key);
        }
        return new SubmitResult(existing, true, false, prepared.decision(), key);
    }

    /**
     * Stages the workspace for a job just created; if that fails the job goes too (its pods would wait for a volume
     * that never comes) and the failure is the create's.
     */
    private void stageWorkspace(Workspace workspace, TrainJob created) {
        try {
            new WorkspaceStaging(client, retry).stageFor(workspace, created);
        } catch (RuntimeException e) {
            try {
                trainJobs(created.getMetadata().getNamespace())
                        .withName(created.getMetadata().getName())
                        .delete();
            } catch (KubernetesClientException deleteFailure) {
                e.addSuppressed(deleteFailure);
            }
            throw e;
        }
    }

    /** The TrainJobs with that label that have not completed or failed (the count is best effort under races). */
    private List<TrainJob> unfinished(String namespace, String label, String value) {
        return retry
                .call(
                        "list TrainJobs " + label + "=" + value,
                        () -> trainJobs(namespace).withLabel(label, value).list())
                .getItems()
                .stream()
                .filter(job -> !TrainJobPhase.of(job).isTerminal())
                .toList();
    }

    private static String keyOrRandom(TrainRequest request) {
        return request.idempotencyKey() != null
                ? TrainJobMetadata.scopedKey(request.idempotencyScope(), request.idempotencyKey())
                : UUID.randomUUID().toString();
    }

    /** Finds the runtime the request names; a missing runtime is an input error, reported before any write. */
    public TrainingRuntimeDescriptor lookupRuntime(TrainRequest request, String namespace) {
        RuntimeKind kind = request.runtimeKind() != null
                ? RuntimeKind.of(request.runtimeKind())
                : RuntimeKind.ClusterTrainingRuntime;
        GenericKubernetesResource runtime = runtimes.find(kind, namespace, request.runtime());
        if (runtime == null) {
            boolean namespaced = kind.namespaced();
            throw new InvalidOptionException(
                    "runtime",
                    kind + " '" + request.runtime() + "' does not exist"
                            + (namespaced ? " in namespace " + namespace : "") + "; list them with kubectl get "
                            + kind.context().getPlural()
                            + (namespaced ? "" : ", or set runtimeKind=TrainingRuntime for a namespaced one"));
        }
        return TrainingRuntimeDescriptor.from(runtime);
    }

    private NonNamespaceOperation<TrainJob, KubernetesResourceList<TrainJob>, Resource<TrainJob>> trainJobs(
            String namespace) {
        return client.resources(TrainJob.class).inNamespace(namespace);
    }
}
