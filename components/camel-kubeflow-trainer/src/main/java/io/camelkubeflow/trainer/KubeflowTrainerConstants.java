package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import org.apache.camel.spi.Metadata;

/**
 * Message headers read and written by the kubeflow-trainer component. Every train field ({@link TrainField}) has its
 * header here, named {@code CamelKubeflowTrainer} + the field's name capitalized (TrainFieldTest holds them to it);
 * the other operations read the few headers below that name a job or override a wait or log read.
 */
public final class KubeflowTrainerConstants {
    private static final String PREFIX = "CamelKubeflowTrainer";

    // identity of the job

    @Metadata(label = "train", description = "The namespace of the TrainJob (in), and where it was created (out).",
              javaType = "String")
    public static final String NAMESPACE = TrainJobMdc.NAMESPACE;
    @Metadata(description = "The TrainJob name: an explicit name on input; the created or adopted job's name on output.",
              javaType = "String")
    public static final String JOB_NAME = TrainJobMdc.JOB_NAME;
    @Metadata(label = "train", description = "Prefix of a name derived from the idempotency key.", javaType = "String")
    public static final String JOB_NAME_PREFIX = "CamelKubeflowTrainerJobNamePrefix";
    @Metadata(label = "train", description = "The idempotency key: the same key always maps to the same TrainJob,"
                                             + " so a redelivered message adopts the job instead of training twice.",
              javaType = "String")
    public static final String IDEMPOTENCY_KEY = "CamelKubeflowTrainerIdempotencyKey";

    @Metadata(label = "train", description = "The key space of the idempotency key (an entry point, a caller): the same"
                                             + " key in two scopes names two TrainJobs. Set it from the route, never"
                                             + " from what a request says of itself.",
              javaType = "String")
    public static final String IDEMPOTENCY_SCOPE = "CamelKubeflowTrainerIdempotencyScope";
    @Metadata(label = "train", description = "What counts as the same training for skipIfRunning.", javaType = "String")
    public static final String RUN_KEY = "CamelKubeflowTrainerRunKey";
    @Metadata(label = "train", description = "True when no TrainJob was started because one for the same run key is"
                                             + " still running; the body is that job (out).",
              javaType = "Boolean")
    public static final String SKIPPED = "CamelKubeflowTrainerSkipped";
    @Metadata(label = "train", description = "Do not start a TrainJob while one for the same run key is still"
                                             + " running.", javaType = "Boolean")
    public static final String SKIP_IF_RUNNING = "CamelKubeflowTrainerSkipIfRunning";
    @Metadata(label = "train", description = "Most TrainJobs of the in-flight group that may run at once.",
              javaType = "Integer")
    public static final String MAX_IN_FLIGHT = "CamelKubeflowTrainerMaxInFlight";
    @Metadata(label = "train", description = "The group whose running TrainJobs maxInFlight counts.",
              javaType = "String")
    public static final String IN_FLIGHT_GROUP = "CamelKubeflowTrainerInFlightGroup";
    @Metadata(label = "train", description = "Delete the TrainJob this long after it finished (or its log was last"
                                             + " captured): milliseconds or a java.time.Duration.",
              javaType = "java.time.Duration")
    public static final String TTL_AFTER_FINISHED = "CamelKubeflowTrainerTtlAfterFinished";
    @Metadata(label = "delete", description = "True when delete removed a TrainJob, false when there was none (out).",
              javaType = "Boolean")
    public static final String DELETED = "CamelKubeflowTrainerDeleted";
    @Metadata(label = "delete", description = "What happens to the deleted TrainJob's JobSet and pods (in), instead of"
                                              + " the deletePropagation option: Background, Foreground or Orphan.",
              javaType = "String")
    public static final String DELETE_PROPAGATION = "CamelKubeflowTrainerDeletePropagation";
    @Metadata(label = "list", description = "Only TrainJobs matching this label selector (in), instead of the"
                                            + " labelSelector option, e.g. team=vision.",
              javaType = "String")
    public static final String LABEL_SELECTOR = "CamelKubeflowTrainerLabelSelector";
    @Metadata(description = "The steps of the TrainJob (out of get, wait, suspend, resume, events and the events"
                            + " consumer): a List of io.camelkubeflow.trainer.watch.TrainJobStep (name as the Kubeflow"
                            + " SDK names it, pod phase, device, device count, pod name), read from the pod informer;"
                            + " of list, a Map from namespace/name to each job's steps.",
              javaType = "Object")
    public static final String STEPS = "CamelKubeflowTrainerSteps";
    @Metadata(label = "list", description = "The status of each listed TrainJob (out): a Map from namespace/name to"
                                            + " an io.camelkubeflow.trainer.watch.ReportedStatus (status, reason,"
                                            + " message), as get reports it: for a job Kueue holds, what its Workload"
                                            + " says (Queued, Admitted, Preempted, Evicted), all read with one list of"
                                            + " Workloads.",
              javaType = "java.util.Map<String, io.camelkubeflow.trainer.watch.ReportedStatus>")
    public static final String STATUSES = "CamelKubeflowTrainerStatuses";

    // the caller a request acts for (authorizeCaller)

    /**
     * The exchange property (not a header) holding the {@link io.camelkubeflow.trainer.access.Caller} a message acts
     * for with authorizeCaller. Only the route's authentication step sets it, as that typed value: no header, query
     * parameter, record header or object metadata can reach an exchange property, and a value of any other type
     * counts as no caller.
     */
    public static final String CALLER_PROPERTY = "CamelKubeflowTrainerCaller";

    // runtime and launcher

    @Metadata(label = "train,list,runtimes", description = "Name of the ClusterTrainingRuntime or TrainingRuntime: the"
                                                         + " one train runs on; list only jobs on it; runtimes"
                                                         + " answers that one runtime.", javaType = "String")
    public static final String RUNTIME = "CamelKubeflowTrainerRuntime";
    @Metadata(label = "train", description = "ClusterTrainingRuntime or TrainingRuntime.", javaType = "String")
    public static final String RUNTIME_KIND = "CamelKubeflowTrainerRuntimeKind";
    @Metadata(label = "train", description = "Trainer image, replacing the runtime's.", javaType = "String")
    public static final String IMAGE = "CamelKubeflowTrainerImage";
    @Metadata(label = "train", description = "The launcher to force: one of the launcher option's values.",
              javaType = "String")
    public static final String LAUNCHER = "CamelKubeflowTrainerLauncher";
    @Metadata(label = "train", description = "Image rules, glob=launcher, comma-separated, first match wins.",
              javaType = "String")
    public static final String IMAGE_RULES = "CamelKubeflowTrainerImageRules";

    // payload

    @Metadata(label = "train", description = "The command to run under the launcher: a List of words, or one string"
                                             + " split like a shell would (no expansion).",
              javaType = "java.util.List<String>")
    public static final String COMMAND = "CamelKubeflowTrainerCommand";
    @Metadata(label = "train", description = "Arguments for the command, file or script: a List, or one string split"
                                             + " like a shell would.",
              javaType = "java.util.List<String>")
    public static final String ARGS = "CamelKubeflowTrainerArgs";
    @Metadata(label = "train", description = "Path of a Python file inside the image.", javaType = "String")
    public static final String PYTHON_FILE = "CamelKubeflowTrainerPythonFile";
    @Metadata(label = "train", description = "Inline Python source to stage into the pods.", javaType = "String")
    public static final String SCRIPT = "CamelKubeflowTrainerScript";
    @Metadata(label = "train", description = "File name of the inline script in the pod.", javaType = "String")
    public static final String SCRIPT_FILE_NAME = "CamelKubeflowTrainerScriptFileName";
    @Metadata(label = "train", description = "A local project folder, .zip or .tar.gz the code runs in on every node.",
              javaType = "String")
    public static final String WORKSPACE = "CamelKubeflowTrainerWorkspace";
    @Metadata(label = "train", description = "pip packages to install first: a List or comma-separated.",
              javaType = "java.util.List<String>")
    public static final String PACKAGES = "CamelKubeflowTrainerPackages";
    @Metadata(label = "train", description = "pip index URLs: a List or comma-separated.", javaType = "java.util.List<String>")
    public static final String PIP_INDEX_URLS = "CamelKubeflowTrainerPipIndexUrls";

    // resources and scheduling

    @Metadata(label = "train", description = "Trainer env: a Map of name to value, secretKeyRef:NAME/KEY,"
                                             + " configMapKeyRef:NAME/KEY or an EnvVar; merged over the endpoint's.",
              javaType = "java.util.Map<String, Object>")
    public static final String ENV = "CamelKubeflowTrainerEnv";
    @Metadata(label = "train", description = "Number of training nodes.", javaType = "Integer")
    public static final String NUM_NODES = "CamelKubeflowTrainerNumNodes";
    @Metadata(label = "train", description = "Processes per node.", javaType = "Integer")
    public static final String NUM_PROC_PER_NODE = "CamelKubeflowTrainerNumProcPerNode";
    @Metadata(label = "train", description = "CPU per node (a Kubernetes quantity).", javaType = "String")
    public static final String CPU = "CamelKubeflowTrainerCpu";
    @Metadata(label = "train", description = "Memory per node (a Kubernetes quantity).", javaType = "String")
    public static final String MEMORY = "CamelKubeflowTrainerMemory";
    @Metadata(label = "train", description = "NVIDIA GPUs per node (nvidia.com/gpu).", javaType = "String")
    public static final String GPU = "CamelKubeflowTrainerGpu";
    @Metadata(label = "train", description = "Other resources per node: a Map of resource name to quantity.",
              javaType = "java.util.Map<String, String>")
    public static final String RESOURCES = "CamelKubeflowTrainerResources";
    @Metadata(label = "train", description = "TrainJob labels: a Map, merged over the endpoint's.",
              javaType = "java.util.Map<String, String>")
    public static final String LABELS = "CamelKubeflowTrainerLabels";
    @Metadata(label = "train", description = "TrainJob annotations: a Map, merged over the endpoint's.",
              javaType = "java.util.Map<String, String>")
    public static final String ANNOTATIONS = "CamelKubeflowTrainerAnnotations";
    @Metadata(label = "train", description = "The Kueue LocalQueue that admits the job (label kueue.x-k8s.io/queue-name).",
              javaType = "String")
    public static final String QUEUE = "CamelKubeflowTrainerQueue";
    @Metadata(label = "train", description = "The job's Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class).",
              javaType = "String")
    public static final String PRIORITY_CLASS = "CamelKubeflowTrainerPriorityClass";
    @Metadata(label = "train", description = "Dataset initializer storageUri (hf://, s3://, cache://).", javaType = "String")
    public static final String DATASET_URI = "CamelKubeflowTrainerDatasetUri";
    @Metadata(label = "train", description = "Secret handed whole to the dataset initializer (envFrom).", javaType = "String")
    public static final String DATASET_SECRET = "CamelKubeflowTrainerDatasetSecret";
    @Metadata(label = "train", description = "Dataset initializer kind: hf, s3 or cache.", javaType = "String")
    public static final String DATASET_KIND = "CamelKubeflowTrainerDatasetKind";
    @Metadata(label = "train", description = "File patterns the dataset initializer skips: a List or comma-separated.",
              javaType = "java.util.List<String>")
    public static final String DATASET_IGNORE_PATTERNS = "CamelKubeflowTrainerDatasetIgnorePatterns";
    @Metadata(label = "train", description = "HF access token of the dataset initializer: secretKeyRef:NAME/KEY only.",
              javaType = "String")
    public static final String DATASET_ACCESS_TOKEN = "CamelKubeflowTrainerDatasetAccessToken";
    @Metadata(label = "train", description = "S3 endpoint URL of the dataset initializer.", javaType = "String")
    public static final String DATASET_ENDPOINT = "CamelKubeflowTrainerDatasetEndpoint";
    @Metadata(label = "train", description = "S3 region of the dataset initializer.", javaType = "String")
    public static final String DATASET_REGION = "CamelKubeflowTrainerDatasetRegion";
    @Metadata(label = "train", description = "Role ARN the S3 dataset initializer assumes.", javaType = "String")
    public static final String DATASET_ROLE_ARN = "CamelKubeflowTrainerDatasetRoleArn";
    @Metadata(label = "train", description = "S3 access key id of the dataset initializer: secretKeyRef:NAME/KEY only.",
              javaType = "String")
    public static final String DATASET_ACCESS_KEY_ID = "CamelKubeflowTrainerDatasetAccessKeyId";
    @Metadata(label = "train", description = "S3 secret access key of the dataset initializer: secretKeyRef:NAME/KEY only.",
              javaType = "String")
    public static final String DATASET_SECRET_ACCESS_KEY = "CamelKubeflowTrainerDatasetSecretAccessKey";
    @Metadata(label = "train", description = "Data cache: the Iceberg table's metadata file.", javaType = "String")
    public static final String DATASET_CACHE_METADATA_LOC = "CamelKubeflowTrainerDatasetCacheMetadataLoc";
    @Metadata(label = "train", description = "Data cache: number of data nodes (2 or more).", javaType = "Integer")
    public static final String DATASET_CACHE_DATA_NODES = "CamelKubeflowTrainerDatasetCacheDataNodes";
    @Metadata(label = "train", description = "Data cache: CPU of the head node.", javaType = "String")
    public static final String DATASET_CACHE_HEAD_CPU = "CamelKubeflowTrainerDatasetCacheHeadCpu";
    @Metadata(label = "train", description = "Data cache: memory of the head node.", javaType = "String")
    public static final String DATASET_CACHE_HEAD_MEMORY = "CamelKubeflowTrainerDatasetCacheHeadMemory";
    @Metadata(label = "train", description = "Data cache: CPU of each worker node.", javaType = "String")
    public static final String DATASET_CACHE_WORKER_CPU = "CamelKubeflowTrainerDatasetCacheWorkerCpu";
    @Metadata(label = "train", description = "Data cache: memory of each worker node.", javaType = "String")
    public static final String DATASET_CACHE_WORKER_MEMORY = "CamelKubeflowTrainerDatasetCacheWorkerMemory";
    @Metadata(label = "train", description = "Data cache: IAM role ARN reading the metadata file.", javaType = "String")
    public static final String DATASET_CACHE_IAM_ROLE = "CamelKubeflowTrainerDatasetCacheIamRole";
    @Metadata(label = "train", description = "Model initializer storageUri.", javaType = "String")
    public static final String MODEL_URI = "CamelKubeflowTrainerModelUri";
    @Metadata(label = "train", description = "Secret handed whole to the model initializer (envFrom).", javaType = "String")
    public static final String MODEL_SECRET = "CamelKubeflowTrainerModelSecret";
    @Metadata(label = "train", description = "Model initializer kind: hf or s3.", javaType = "String")
    public static final String MODEL_KIND = "CamelKubeflowTrainerModelKind";
    @Metadata(label = "train", description = "File patterns the model initializer skips: a List or comma-separated.",
              javaType = "java.util.List<String>")
    public static final String MODEL_IGNORE_PATTERNS = "CamelKubeflowTrainerModelIgnorePatterns";
    @Metadata(label = "train", description = "HF access token of the model initializer: secretKeyRef:NAME/KEY only.",
              javaType = "String")
    public static final String MODEL_ACCESS_TOKEN = "CamelKubeflowTrainerModelAccessToken";
    @Metadata(label = "train", description = "S3 endpoint URL of the model initializer.", javaType = "String")
    public static final String MODEL_ENDPOINT = "CamelKubeflowTrainerModelEndpoint";
    @Metadata(label = "train", description = "S3 region of the model initializer.", javaType = "String")
    public static final String MODEL_REGION = "CamelKubeflowTrainerModelRegion";
    @Metadata(label = "train", description = "Role ARN the S3 model initializer assumes.", javaType = "String")
    public static final String MODEL_ROLE_ARN = "CamelKubeflowTrainerModelRoleArn";
    @Metadata(label = "train", description = "S3 access key id of the model initializer: secretKeyRef:NAME/KEY only.",
              javaType = "String")
    public static final String MODEL_ACCESS_KEY_ID = "CamelKubeflowTrainerModelAccessKeyId";
    @Metadata(label = "train", description = "S3 secret access key of the model initializer: secretKeyRef:NAME/KEY only.",
              javaType = "String")
    public static final String MODEL_SECRET_ACCESS_KEY = "CamelKubeflowTrainerModelSecretAccessKey";
    @Metadata(label = "train", description = "Where the training writes what it makes (s3://bucket/prefix/ or pvc://claim/path/): given to"
                                             + " the code as the OUTPUT_URI variable, recorded on the TrainJob and"
                                             + " set on every message about the job, completion events included.",
              javaType = "String")
    public static final String OUTPUT_URI = "CamelKubeflowTrainerOutputUri";
    @Metadata(label = "train", description = "Run the image's own ENTRYPOINT/CMD: no command is set (needs image).", javaType = "Boolean")
    public static final String IMAGE_ENTRYPOINT = "CamelKubeflowTrainerImageEntrypoint";
    @Metadata(label = "train", description = "torchtune builtin trainer: dtype (bf16 or fp32).", javaType = "String")
    public static final String TORCHTUNE_DTYPE = "CamelKubeflowTrainerTorchtuneDtype";
    @Metadata(label = "train", description = "torchtune builtin trainer: batch size.", javaType = "Integer")
    public static final String TORCHTUNE_BATCH_SIZE = "CamelKubeflowTrainerTorchtuneBatchSize";
    @Metadata(label = "train", description = "torchtune builtin trainer: epochs.", javaType = "Integer")
    public static final String TORCHTUNE_EPOCHS = "CamelKubeflowTrainerTorchtuneEpochs";
    @Metadata(label = "train", description = "torchtune builtin trainer: the loss class.", javaType = "String")
    public static final String TORCHTUNE_LOSS = "CamelKubeflowTrainerTorchtuneLoss";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: attention modules, a List or comma-separated.", javaType = "java.util.List<String>")
    public static final String TORCHTUNE_LORA_ATTN_MODULES = "CamelKubeflowTrainerTorchtuneLoraAttnModules";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: rank.", javaType = "Integer")
    public static final String TORCHTUNE_LORA_RANK = "CamelKubeflowTrainerTorchtuneLoraRank";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: alpha.", javaType = "Integer")
    public static final String TORCHTUNE_LORA_ALPHA = "CamelKubeflowTrainerTorchtuneLoraAlpha";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: dropout, from 0 to 1.", javaType = "Double")
    public static final String TORCHTUNE_LORA_DROPOUT = "CamelKubeflowTrainerTorchtuneLoraDropout";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: apply to the MLP.", javaType = "Boolean")
    public static final String TORCHTUNE_LORA_APPLY_TO_MLP = "CamelKubeflowTrainerTorchtuneLoraApplyToMlp";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: apply to the output projection.", javaType = "Boolean")
    public static final String TORCHTUNE_LORA_APPLY_TO_OUTPUT = "CamelKubeflowTrainerTorchtuneLoraApplyToOutput";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: quantize the base model (QLoRA).", javaType = "Boolean")
    public static final String TORCHTUNE_QUANTIZE_BASE = "CamelKubeflowTrainerTorchtuneQuantizeBase";
    @Metadata(label = "train", description = "torchtune builtin trainer, LoRA: use DoRA.", javaType = "Boolean")
    public static final String TORCHTUNE_USE_DORA = "CamelKubeflowTrainerTorchtuneUseDora";
    @Metadata(label = "train", description = "torchtune builtin trainer, instruct dataset: data file type.", javaType = "String")
    public static final String TORCHTUNE_DATASET_SOURCE = "CamelKubeflowTrainerTorchtuneDatasetSource";
    @Metadata(label = "train", description = "torchtune builtin trainer, instruct dataset: split.", javaType = "String")
    public static final String TORCHTUNE_DATASET_SPLIT = "CamelKubeflowTrainerTorchtuneDatasetSplit";
    @Metadata(label = "train", description = "torchtune builtin trainer, instruct dataset: train on input.", javaType = "Boolean")
    public static final String TORCHTUNE_TRAIN_ON_INPUT = "CamelKubeflowTrainerTorchtuneTrainOnInput";
    @Metadata(label = "train", description = "torchtune builtin trainer, instruct dataset: new system prompt.", javaType = "String")
    public static final String TORCHTUNE_NEW_SYSTEM_PROMPT = "CamelKubeflowTrainerTorchtuneNewSystemPrompt";
    @Metadata(label = "train", description = "torchtune builtin trainer, instruct dataset: a Map of input/output to column names.", javaType = "java.util.Map<String, String>")
    public static final String TORCHTUNE_COLUMN_MAP = "CamelKubeflowTrainerTorchtuneColumnMap";
    @Metadata(label = "train", description = "Pod option: node labels the pods must run on: a Map, merged over the"
                                             + " endpoint's.", javaType = "java.util.Map<String, String>")
    public static final String NODE_SELECTOR = "CamelKubeflowTrainerNodeSelector";
    @Metadata(label = "train", description = "Pod option: tolerations (KEY, KEY=VALUE, KEY:EFFECT or"
                                             + " KEY=VALUE:EFFECT): a List or comma-separated.", javaType = "java.util.List<String>")
    public static final String TOLERATIONS = "CamelKubeflowTrainerTolerations";
    @Metadata(label = "train", description = "Pod option: required node affinity (KEY=VALUES, KEY!=VALUES, KEY,"
                                             + " !KEY; values separated by a vertical bar): a List or"
                                             + " comma-separated.", javaType = "java.util.List<String>")
    public static final String NODE_AFFINITY = "CamelKubeflowTrainerNodeAffinity";
    @Metadata(label = "train", description = "Pod option: volumes (KIND:NAME:/mount/path, :ro at the end for"
                                             + " read-only; KIND pvc, configMap, secret or emptyDir): a List or"
                                             + " comma-separated.",
              javaType = "java.util.List<String>")
    public static final String VOLUMES = "CamelKubeflowTrainerVolumes";
    @Metadata(label = "train", description = "Pod option: the ServiceAccount the pods run as.", javaType = "String")
    public static final String SERVICE_ACCOUNT_NAME = "CamelKubeflowTrainerServiceAccountName";
    @Metadata(label = "train", description = "Pod option: image pull Secrets: a List or comma-separated.",
              javaType = "java.util.List<String>")
    public static final String IMAGE_PULL_SECRETS = "CamelKubeflowTrainerImagePullSecrets";
    @Metadata(label = "train", description = "Pod option: the pod's security context: a Map of setting to value.",
              javaType = "java.util.Map<String, String>")
    public static final String POD_SECURITY_CONTEXT = "CamelKubeflowTrainerPodSecurityContext";
    @Metadata(label = "train", description = "Pod option: the patched container's security context: a Map of setting"
                                             + " to value.", javaType = "java.util.Map<String, String>")
    public static final String SECURITY_CONTEXT = "CamelKubeflowTrainerSecurityContext";
    @Metadata(label = "train", description = "The replicated jobs the pod options go to: a List or comma-separated.",
              javaType = "java.util.List<String>")
    public static final String POD_JOBS = "CamelKubeflowTrainerPodJobs";
    @Metadata(label = "train", description = "spec.activeDeadlineSeconds.", javaType = "Long")
    public static final String ACTIVE_DEADLINE_SECONDS = "CamelKubeflowTrainerActiveDeadlineSeconds";
    @Metadata(label = "train", description = "Create the TrainJob suspended.", javaType = "Boolean")
    public static final String SUSPEND = "CamelKubeflowTrainerSuspend";
    @Metadata(label = "train", description = "spec.managedBy (Kueue MultiKueue).", javaType = "String")
    public static final String MANAGED_BY = "CamelKubeflowTrainerManagedBy";

    // output of train

    @Metadata(label = "train", description = "UID of the created or adopted TrainJob.", javaType = "String")
    public static final String JOB_UID = "CamelKubeflowTrainerJobUid";
    @Metadata(label = "train,wait,get,events", description = "sha256:<hex> of the code the TrainJob runs: its image"
                                                           + " as named, command and args, inline script and"
                                                           + " workspace digest (on every message about a job this"
                                                           + " component made).", javaType = "String")
    public static final String CODE_DIGEST = "CamelKubeflowTrainerCodeDigest";
    @Metadata(label = "train", description = "The launcher chosen for the TrainJob (out). Not the same header as the"
                                             + " forcing one, so a second train in the same exchange chooses afresh.",
              javaType = "String")
    public static final String LAUNCHER_CHOSEN = "CamelKubeflowTrainerLauncherChosen";
    @Metadata(label = "train", description = "Which rule chose the launcher: FORCED, IMAGE_RULE, FRAMEWORK_LABEL,"
                                             + " ML_POLICY or FALLBACK.",
              javaType = "String")
    public static final String LAUNCHER_RULE = "CamelKubeflowTrainerLauncherRule";
    @Metadata(label = "train", description = "Why that launcher was chosen, in a sentence.", javaType = "String")
    public static final String LAUNCHER_REASON = "CamelKubeflowTrainerLauncherReason";
    @Metadata(label = "train", description = "True when an existing TrainJob made for the same idempotency key was"
                                             + " adopted instead of creating one.",
              javaType = "Boolean")
    public static final String ADOPTED = "CamelKubeflowTrainerAdopted";

    // wait

    @Metadata(label = "wait", description = "The status to wait for (in): Complete, Failed, Running or Suspended.",
              javaType = "String")
    public static final String WAIT_FOR = "CamelKubeflowTrainerWaitFor";
    @Metadata(label = "wait", description = "How long to wait (in), in milliseconds or as a java.time.Duration.",
              javaType = "java.time.Duration")
    public static final String WAIT_TIMEOUT = "CamelKubeflowTrainerWaitTimeout";
    @Metadata(label = "wait", description = "How long the job may wait in a Kueue queue (in), in milliseconds or as a"
                                            + " java.time.Duration.",
              javaType = "java.time.Duration")
    public static final String QUEUE_TIMEOUT = "CamelKubeflowTrainerQueueTimeout";
    @Metadata(label = "wait", description = "The TrainJob's status (out): Created, Running, Suspended, Complete or"
                                            + " Failed; for a job Kueue holds (get, events, suspend, resume, the events"
                                            + " consumer, a wait that timed out), what its Workload says: Queued,"
                                            + " Admitted, Preempted or Evicted.",
              javaType = "String")
    public static final String STATUS = "CamelKubeflowTrainerStatus";
    @Metadata(label = "wait,consumer", description = "Reason of the condition that decided the status, e.g. AllJobsCompleted,"
                                            + " FailedJobs, DeadlineExceeded; Kueue's, e.g. Pending, Preempted (out).",
              javaType = "String")
    public static final String REASON = "CamelKubeflowTrainerReason";
    @Metadata(label = "wait,consumer", description = "Message of that condition (out).", javaType = "String")
    public static final String MESSAGE = "CamelKubeflowTrainerMessage";
    @Metadata(label = "wait", description = "For a failed job, the first container that exited non-zero (out).",
              javaType = "String")
    public static final String POD_FAILURE = "CamelKubeflowTrainerPodFailure";
    @Metadata(label = "wait", description = "Milliseconds from the job's creation to its end (or to now) (out).",
              javaType = "Long")
    public static final String DURATION = "CamelKubeflowTrainerDuration";

    // progress: set by wait and on consumer events when known

    @Metadata(label = "wait,consumer", description = "Where the progress headers come from (out): trainerStatus (what"
                                                     + " the training code reports) or pods (ready/total trainer pods,"
                                                     + " on Progress events of runtimes that report nothing).",
              javaType = "String")
    public static final String PROGRESS_SOURCE = "CamelKubeflowTrainerProgressSource";
    @Metadata(label = "wait,consumer", description = "trainerStatus.progressPercentage, 0 to 100 (out).",
              javaType = "Integer")
    public static final String PROGRESS_PERCENT = "CamelKubeflowTrainerProgressPercent";
    @Metadata(label = "wait,consumer", description = "trainerStatus.estimatedRemainingSeconds (out).",
              javaType = "Integer")
    public static final String ESTIMATED_REMAINING_SECONDS = "CamelKubeflowTrainerEstimatedRemainingSeconds";
    @Metadata(label = "wait,consumer", description = "trainerStatus.metrics by name, e.g. loss, eval_accuracy; values"
                                                     + " are strings as reported (out).",
              javaType = "java.util.Map<String, String>")
    public static final String TRAINER_METRICS = "CamelKubeflowTrainerTrainerMetrics";
    @Metadata(label = "consumer", description = "On Progress events without trainerStatus: trainer pods whose Ready"
                                                + " condition is True (out).",
              javaType = "Integer")
    public static final String PODS_READY = "CamelKubeflowTrainerPodsReady";
    @Metadata(label = "consumer", description = "On Progress events without trainerStatus: trainer pods that exist"
                                                + " (out).",
              javaType = "Integer")
    public static final String PODS_TOTAL = "CamelKubeflowTrainerPodsTotal";

    // logs

    @Metadata(label = "logs", description = "The step whose logs to read (in): trainer, node-N, launcher,"
                                            + " dataset-initializer, model-initializer or all. On exchanges sent to"
                                            + " logDestination (out): the step the lines come from.",
              javaType = "String")
    public static final String LOG_STEP = "CamelKubeflowTrainerLogStep";
    @Metadata(label = "logs", description = "How many lines were read (out).", javaType = "Long")
    public static final String LOG_LINES = "CamelKubeflowTrainerLogLines";
    @Metadata(label = "logs", description = "True when the body holds only the last maxLogBytes of the log (out).",
              javaType = "Boolean")
    public static final String LOG_TRUNCATED = "CamelKubeflowTrainerLogTruncated";

    // events consumer

    @Metadata(label = "consumer", description = "What happened to the TrainJob: Created, Running, Suspended,"
                                                + " Complete, Failed or Deleted; Progress with progressInterval;"
                                                + " for a job Kueue holds, Queued, Admitted, Preempted or Evicted.",
              javaType = "String")
    public static final String EVENT = "CamelKubeflowTrainerEvent";

    private KubeflowTrainerConstants() {
    }

    /** The header of a train field: {@code numNodes} is set per message by {@code CamelKubeflowTrainerNumNodes}. */
    public static String header(TrainField field) {
        return PREFIX + Character.toUpperCase(field.fieldName().charAt(0)) + field.fieldName().substring(1);
    }
}
