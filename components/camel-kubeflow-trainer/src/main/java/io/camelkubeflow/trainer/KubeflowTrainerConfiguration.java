package io.camelkubeflow.trainer;

import java.util.LinkedHashMap;
import java.util.Map;

import io.camelkubeflow.trainer.job.RequestPolicy;
import io.camelkubeflow.trainer.workspace.WorkspaceFetcher;
import io.camelkubeflow.trainer.workspace.WorkspaceStore;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.watch.WaitTarget;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriParams;

/**
 * Options of a kubeflow-trainer endpoint. Options of the train operation are the defaults of every TrainJob the
 * endpoint creates; a TrainJob body overrides them, and the headers in {@link KubeflowTrainerConstants} override both.
 */
@UriParams
public class KubeflowTrainerConfiguration implements Cloneable {

    @UriParam(label = "advanced", description = "A KubernetesClient to use; by default one from the registry, else"
                                                + " one built from masterUrl/kubeconfig/in-cluster config.")
    @Metadata(autowired = true)
    private KubernetesClient kubernetesClient;
    @UriParam(label = "common",
              description = "Namespace of the TrainJobs; defaults to the client's namespace, then 'default'.")
    private String namespace;
    @UriParam(label = "advanced", defaultValue = "5",
              description = "Requests per API call when the server answers 429 or 5xx (1: no retry). Other answers"
                            + " (400, 403, 404, 409, 422) fail at once. Not applied to a client that retries by itself"
                            + " (requestRetryBackoffLimit above 0): retries are never stacked.")
    private int apiRetryAttempts = 5;
    @UriParam(label = "advanced", defaultValue = "200ms", javaType = "java.time.Duration",
              description = "Pause before the first retry; it doubles for each further one up to 25 times this,"
                            + " with jitter (a random half of it), and is never shorter than the server's"
                            + " retryAfterSeconds.")
    private long apiRetryBackoff = 200L;
    @UriParam(label = "train,list,runtimes",
              description = "Name of the ClusterTrainingRuntime (or TrainingRuntime, see runtimeKind) the TrainJob runs on;"
                            + " for list, only the TrainJobs on that runtime; for runtimes, that runtime alone (a"
                            + " namespaced TrainingRuntime before a ClusterTrainingRuntime of the name).")
    private String runtime;
    @UriParam(label = "train", defaultValue = "ClusterTrainingRuntime", description = "Kind of the runtime.")
    private RuntimeKind runtimeKind;
    @UriParam(label = "train",
              description = "Trainer image, replacing the runtime's; image rules match against it.")
    private String image;
    @UriParam(label = "train", description = "Force a launcher instead of deriving it from the runtime.")
    private Launcher launcher;
    @UriParam(label = "train",
              description = "Comma-separated rules glob=launcher on the trainer image, e.g. registry.example.com/*deepspeed*=mpirun; first match wins and beats the runtime's own launcher.")
    private String imageRules;
    @UriParam(label = "train",
              description = "The command to run under the launcher, split like a shell would (quotes respected, nothing expanded).")
    private String command;
    @UriParam(label = "train",
              description = "Arguments for the command, Python file or script, split like a shell would.")
    private String args;
    @UriParam(label = "train",
              description = "Path of a Python file inside the image to run under the launcher.")
    private String pythonFile;
    @Metadata(supportFileReference = true)
    @UriParam(label = "train",
              description = "Inline Python script to stage into the pods: a resource such as classpath:train.py or file:/path/train.py. See also bodyType=script.")
    private String script;
    @UriParam(label = "train", defaultValue = "train.py",
              description = "File name the inline script gets in the pod.")
    private String scriptFileName;
    @UriParam(label = "train",
              description = "A whole project to run on every node: a local folder, .zip or .tar.gz (file: prefix optional). It is staged once per content (SHA-256) in a ConfigMap owned by the jobs that use it, unpacked before the code starts, and its requirements.txt installed; pythonFile and command run in its root. Or git+<repository URL>[@<ref>]. Under a request policy, only locations under its workspaceSources are read.")
    private String workspace;
    @UriParam(label = "train", defaultValue = "auto",
              description = "How the message body is read: auto merges a body that is a TrainJob (typed, Map, JSON or YAML) and ignores others, and never reads the TrainJob an earlier train, wait, get or events step of the same exchange answered with (a chain of train steps makes one job each); trainJob requires one; script takes the body as the inline Python script; workspace takes it as a project archive (zip, tar or tar.gz) to run in; ignore never reads it.")
    private BodyType bodyType = BodyType.auto;
    @UriParam(label = "train",
              description = "Comma-separated pip packages installed before the payload runs (with --user under MPI).")
    private String packages;
    @UriParam(label = "train",
              description = "Comma-separated pip index URLs: the first is --index-url, the rest --extra-index-url.")
    private String pipIndexUrls;
    @UriParam(label = "train",
              description = "Number of training nodes.")
    private Integer numNodes;
    @UriParam(label = "train",
              description = "Processes per node.")
    private Integer numProcPerNode;
    @UriParam(label = "train",
              description = "CPU per node (a Kubernetes quantity such as 4 or 500m); requests equal limits.")
    private String cpu;
    @UriParam(label = "train",
              description = "Memory per node (a Kubernetes quantity such as 16Gi).")
    private String memory;
    @UriParam(label = "train",
              description = "NVIDIA GPUs per node (nvidia.com/gpu).")
    private String gpu;
    @UriParam(label = "train",
              description = "storageUri of the dataset initializer: hf://org/dataset, s3://bucket/path or"
                            + " cache://schema/table; the scheme picks the initializer.")
    private String datasetUri;
    @UriParam(label = "train",
              description = "Secret handed whole to the dataset initializer (envFrom): its keys ACCESS_TOKEN (hf),"
                            + " ACCESS_KEY_ID and SECRET_ACCESS_KEY (s3) are read as the credentials.")
    private String datasetSecret;
    @UriParam(label = "train",
              description = "Which initializer fetches the dataset when datasetUri's scheme does not say it: hf, s3 or cache"
                            + " (a URI without a scheme gets this one's).")
    private String datasetKind;
    @UriParam(label = "train",
              description = "Comma-separated file patterns the hf or s3 dataset initializer skips (IGNORE_PATTERNS).")
    private String datasetIgnorePatterns;
    @UriParam(label = "train", secret = true,
              description = "Hugging Face token of the hf dataset initializer, as secretKeyRef:NAME/KEY only, never"
                            + " the value (ACCESS_TOKEN).")
    private String datasetAccessToken;
    @UriParam(label = "train",
              description = "S3 endpoint URL of the s3 dataset initializer, e.g. http://minio:9000 (ENDPOINT).")
    private String datasetEndpoint;
    @UriParam(label = "train",
              description = "S3 region of the s3 dataset initializer (REGION).")
    private String datasetRegion;
    @UriParam(label = "train",
              description = "ARN of the role the s3 dataset initializer assumes (ROLE_ARN).")
    private String datasetRoleArn;
    @UriParam(label = "train", secret = true,
              description = "S3 access key id of the s3 dataset initializer, as secretKeyRef:NAME/KEY only, never the"
                            + " value (ACCESS_KEY_ID).")
    private String datasetAccessKeyId;
    @UriParam(label = "train", secret = true,
              description = "S3 secret access key of the s3 dataset initializer, as secretKeyRef:NAME/KEY only, never"
                            + " the value (SECRET_ACCESS_KEY).")
    private String datasetSecretAccessKey;
    @UriParam(label = "train",
              description = "Data cache: the Iceberg table's metadata file, e.g. s3://bucket/table/metadata/v1.metadata.json"
                            + " (METADATA_LOC).")
    private String datasetCacheMetadataLoc;
    @UriParam(label = "train",
              description = "Data cache: number of data nodes, at least 2 (CLUSTER_SIZE is one more, for the head).")
    private Integer datasetCacheDataNodes;
    @UriParam(label = "train",
              description = "Data cache: CPU of the head node, a quantity (HEAD_CPU).")
    private String datasetCacheHeadCpu;
    @UriParam(label = "train",
              description = "Data cache: memory of the head node, a quantity (HEAD_MEM).")
    private String datasetCacheHeadMemory;
    @UriParam(label = "train",
              description = "Data cache: CPU of each worker node, a quantity (WORKER_CPU).")
    private String datasetCacheWorkerCpu;
    @UriParam(label = "train",
              description = "Data cache: memory of each worker node, a quantity (WORKER_MEM).")
    private String datasetCacheWorkerMemory;
    @UriParam(label = "train",
              description = "Data cache: ARN of the IAM role that reads the metadata file (IAM_ROLE).")
    private String datasetCacheIamRole;
    @UriParam(label = "train",
              description = "storageUri of the model initializer: hf://org/model or s3://bucket/path.")
    private String modelUri;
    @UriParam(label = "train",
              description = "Secret handed whole to the model initializer (envFrom): its keys ACCESS_TOKEN (hf),"
                            + " ACCESS_KEY_ID and SECRET_ACCESS_KEY (s3) are read as the credentials.")
    private String modelSecret;
    @UriParam(label = "train", prefix = "nodeSelector.", multiValue = true,
              description = "Pod option: node labels the pods must run on, as nodeSelector.KEY=value (e.g."
                            + " nodeSelector.nvidia.com/gpu.product=A100). Pod options go, in one runtime patch, to"
                            + " the replicated jobs podJobs names: by default those running the trainer's code.")
    private Map<String, Object> nodeSelector;
    @UriParam(label = "train",
              description = "Pod option: comma-separated tolerations, each KEY, KEY=VALUE, KEY:EFFECT or"
                            + " KEY=VALUE:EFFECT (Equal with a value, Exists without), e.g."
                            + " nvidia.com/gpu=present:NoSchedule. They replace the runtime's tolerations.")
    private String tolerations;
    @UriParam(label = "train",
              description = "Pod option: a required node affinity, comma-separated requirements that must all hold:"
                            + " KEY=VALUES (one of), KEY!=VALUES (none of), KEY (has the label), !KEY (lacks it), the"
                            + " values separated by a vertical bar, e.g. kubernetes.io/arch=amd64,!maintenance.")
    private String nodeAffinity;
    @UriParam(label = "train",
              description = "Pod option: comma-separated volumes mounted on the patched container of each job, each"
                            + " KIND:NAME:/mount/path with :ro for read-only, KIND pvc, configMap, secret or emptyDir"
                            + " (e.g. pvc:datasets:/data:ro). No hostPath.")
    private String volumes;
    @UriParam(label = "train",
              description = "Pod option: the ServiceAccount the pods run as (allowed by the request policy's"
                            + " serviceAccounts).")
    private String serviceAccountName;
    @UriParam(label = "train",
              description = "Pod option: comma-separated Secrets the kubelet pulls the images with.")
    private String imagePullSecrets;
    @UriParam(label = "train", prefix = "podSecurityContext.", multiValue = true,
              description = "Pod option: the pod's security context, as podSecurityContext.SETTING=value with"
                            + " runAsUser, runAsGroup, fsGroup, runAsNonRoot or seccompProfile (RuntimeDefault).")
    private Map<String, Object> podSecurityContext;
    @UriParam(label = "train", prefix = "securityContext.", multiValue = true,
              description = "Pod option: the patched container's security context, as securityContext.SETTING=value"
                            + " with runAsUser, runAsGroup, runAsNonRoot, readOnlyRootFilesystem,"
                            + " allowPrivilegeEscalation, seccompProfile (RuntimeDefault) or dropCapabilities (e.g."
                            + " ALL; several separated by a vertical bar). No privileged container, no added"
                            + " capability.")
    private Map<String, Object> securityContext;
    @UriParam(label = "train",
              description = "Comma-separated replicated jobs the pod options go to (e.g. node, launcher,"
                            + " dataset-initializer, model-initializer); by default every job running the trainer's"
                            + " code: node for torch and python, launcher and node for MPI. A job the runtime lacks is"
                            + " refused.")
    private String podJobs;
    @UriParam(label = "train",
              description = "Which initializer fetches the model when modelUri's scheme does not say it: hf or s3.")
    private String modelKind;
    @UriParam(label = "train",
              description = "Comma-separated file patterns the model initializer skips (IGNORE_PATTERNS); unset: the"
                            + " SDK's, which skip msgpack, h5, bin, pt and pth files.")
    private String modelIgnorePatterns;
    @UriParam(label = "train", secret = true,
              description = "Hugging Face token of the hf model initializer, as secretKeyRef:NAME/KEY only, never the"
                            + " value (ACCESS_TOKEN).")
    private String modelAccessToken;
    @UriParam(label = "train",
              description = "S3 endpoint URL of the s3 model initializer (ENDPOINT).")
    private String modelEndpoint;
    @UriParam(label = "train",
              description = "S3 region of the s3 model initializer (REGION).")
    private String modelRegion;
    @UriParam(label = "train",
              description = "ARN of the role the s3 model initializer assumes (ROLE_ARN).")
    private String modelRoleArn;
    @UriParam(label = "train", secret = true,
              description = "S3 access key id of the s3 model initializer, as secretKeyRef:NAME/KEY only, never the"
                            + " value (ACCESS_KEY_ID).")
    private String modelAccessKeyId;
    @UriParam(label = "train", secret = true,
              description = "S3 secret access key of the s3 model initializer, as secretKeyRef:NAME/KEY only, never"
                            + " the value (SECRET_ACCESS_KEY).")
    private String modelSecretAccessKey;
    @UriParam(label = "train",
              description = "Where the training writes what it makes, s3://bucket/prefix/ or pvc://claim/path/ (the"
                            + " claim mounted where the code runs, the folder as OUTPUT_DIR): given to the code as the"
                            + " OUTPUT_URI variable, recorded on the TrainJob (camelkubeflow.io/output-uri) and set as"
                            + " the CamelKubeflowTrainerOutputUri header on every message about the job, so the"
                            + " next route finds the model. Under a request policy, only under its outputLocations.")
    private String outputUri;
    @UriParam(label = "train",
              description = "Run the image's own ENTRYPOINT/CMD (the Kubeflow SDK's CustomTrainerContainer): the TrainJob sets no command, args (if any) replace the image's CMD; needs image, goes with no other payload, and not on a torchtune runtime or one whose trainer sets its own command. Under MPI the launcher job runs it.")
    private Boolean imageEntrypoint;
    @UriParam(label = "train", enums = "bf16,fp32",
              description = "torchtune builtin trainer: the dtype of the model and optimizer parameters (SDK TorchTuneConfig.dtype); any torchtune option runs the runtime's builtin trainer (tune run) with the args the Kubeflow SDK makes for the same config, and needs a torchtune runtime.")
    private String torchtuneDtype;
    @UriParam(label = "train",
              description = "torchtune builtin trainer: samples per step (SDK TorchTuneConfig.batch_size), at least 1.")
    private Integer torchtuneBatchSize;
    @UriParam(label = "train",
              description = "torchtune builtin trainer: passes over the dataset (SDK TorchTuneConfig.epochs), at least 1.")
    private Integer torchtuneEpochs;
    @UriParam(label = "train", enums = "torchtune.modules.loss.CEWithChunkedOutputLoss",
              description = "torchtune builtin trainer: the loss (SDK TorchTuneConfig.loss).")
    private String torchtuneLoss;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: comma-separated attention modules LoRA applies to, of q_proj, k_proj, v_proj, output_proj (SDK LoraConfig.lora_attn_modules; default q_proj,v_proj,output_proj). Any of the torchtuneLora options, torchtuneQuantizeBase and torchtuneUseDora turns LoRA on (the SDK's peft_config).")
    private String torchtuneLoraAttnModules;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: the rank of the low-rank decomposition (SDK LoraConfig.lora_rank), at least 1.")
    private Integer torchtuneLoraRank;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: the scaling factor of the low-rank matrices (SDK LoraConfig.lora_alpha), at least 1.")
    private Integer torchtuneLoraAlpha;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: the dropout probability of the low-rank updates, from 0 to 1 (SDK LoraConfig.lora_dropout).")
    private Double torchtuneLoraDropout;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: apply LoRA to the MLP of each layer (SDK LoraConfig.apply_lora_to_mlp).")
    private Boolean torchtuneLoraApplyToMlp;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: apply LoRA to the final output projection (SDK LoraConfig.apply_lora_to_output).")
    private Boolean torchtuneLoraApplyToOutput;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: quantize the base model, i.e. QLoRA (SDK LoraConfig.quantize_base).")
    private Boolean torchtuneQuantizeBase;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, LoRA: use DoRA (SDK LoraConfig.use_dora).")
    private Boolean torchtuneUseDora;
    @UriParam(label = "train", enums = "json,csv,parquet,arrow,text,xml",
              description = "torchtune builtin trainer, instruct dataset: the data file type (SDK TorchTuneInstructDataset.source). Any of torchtuneDatasetSource, torchtuneDatasetSplit, torchtuneTrainOnInput, torchtuneNewSystemPrompt and torchtuneColumnMap selects torchtune's instruct dataset (the SDK's dataset_preprocess_config).")
    private String torchtuneDatasetSource;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, instruct dataset: the split to use, e.g. train, or a slice of it in Hugging Face's split syntax (SDK TorchTuneInstructDataset.split).")
    private String torchtuneDatasetSplit;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, instruct dataset: train on the user prompt too (SDK TorchTuneInstructDataset.train_on_input).")
    private Boolean torchtuneTrainOnInput;
    @UriParam(label = "train",
              description = "torchtune builtin trainer, instruct dataset: a system prompt put before each sample (SDK TorchTuneInstructDataset.new_system_prompt).")
    private String torchtuneNewSystemPrompt;
    @UriParam(label = "train", prefix = "torchtuneColumnMap.", multiValue = true,
              description = "torchtune builtin trainer, instruct dataset: the dataset's columns for input and output, as torchtuneColumnMap.input=question&torchtuneColumnMap.output=answer (SDK TorchTuneInstructDataset.column_map).")
    private Map<String, Object> torchtuneColumnMap;
    @UriParam(label = "train",
              description = "Seconds the TrainJob may run before it is failed.")
    private Long activeDeadlineSeconds;
    @UriParam(label = "train",
              description = "Create the TrainJob suspended (e.g. for Kueue to admit it).")
    private Boolean suspend;
    @UriParam(label = "train", enums = "trainer.kubeflow.org/trainjob-controller,kueue.x-k8s.io/multikueue",
              description = "spec.managedBy.")
    private String managedBy;
    @UriParam(label = "train",
              description = "Explicit TrainJob name (an RFC 1035 label of at most 63 characters).")
    private String jobName;
    @UriParam(label = "train", defaultValue = "trainjob",
              description = "Prefix of names derived from the idempotency key: prefix-<12 hex digits of its SHA-256>.")
    private String jobNamePrefix;
    @UriParam(label = "train",
              description = "Simple expression giving the idempotency key, e.g. ${header.orderId}. When unset: the key header, else Kafka topic/partition/offset, S3 bucket/key/etag, file path/modified time, else the exchange id.")
    private String idempotencyKey;
    @UriParam(label = "train,security",
              description = "The key space of idempotency keys, e.g. the entry point (kafka) or the caller: the same key"
                            + " in two scopes names two TrainJobs, so one scope's requests can never adopt, or"
                            + " pre-empt, another's. Recorded on the job as camelkubeflow.io/idempotency-scope.")
    private String idempotencyScope;
    @UriParam(label = "train", prefix = "env.", multiValue = true,
              description = "Trainer env, as env.NAME=value; a value secretKeyRef:SECRET/KEY or configMapKeyRef:CONFIGMAP/KEY becomes a reference (the secret value never enters the spec).")
    private Map<String, Object> env;
    @UriParam(label = "train", prefix = "labels.", multiValue = true,
              description = "TrainJob labels, as labels.KEY=value.")
    private Map<String, Object> labels;
    @UriParam(label = "train", prefix = "annotations.", multiValue = true,
              description = "TrainJob annotations, as annotations.KEY=value.")
    private Map<String, Object> annotations;
    @UriParam(label = "train",
              description = "The Kueue LocalQueue of the job's namespace that admits it: the label"
                            + " kueue.x-k8s.io/queue-name. Kueue keeps the job suspended until the"
                            + " queue's quota fits it.")
    private String queue;
    @UriParam(label = "train",
              description = "The job's Kueue WorkloadPriorityClass: the label kueue.x-k8s.io/priority-class, which"
                            + " orders admission and lets the job preempt lower ones.")
    private String priorityClass;
    @UriParam(label = "train", prefix = "resources.", multiValue = true,
              description = "Other resources per node, as resources.NAME=quantity (e.g. resources.google.com/tpu=4).")
    private Map<String, Object> resources;
    @UriParam(label = "train", description = "Simple expression naming what counts as the same training for"
                                             + " skipIfRunning, e.g. ${header.model}.")
    private String runKey;

    @UriParam(label = "train", defaultValue = "false",
              description = "Do not start a TrainJob while one for the same runKey is still running: the running one"
                            + " is returned, with the CamelKubeflowTrainerSkipped header set.")
    private boolean skipIfRunning;

    @UriParam(label = "train", description = "Most TrainJobs of inFlightGroup that may run at once; beyond it the"
                                             + " request fails with TrainJobCapacityException (use redelivery to"
                                             + " queue it).")
    private Integer maxInFlight;

    @UriParam(label = "train", defaultValue = "default",
              description = "The group whose running TrainJobs maxInFlight counts (a label on the TrainJobs).")
    private String inFlightGroup;

    @UriParam(label = "consumer,list", description = "Only TrainJobs matching this label selector, e.g."
                                                + " team=vision,app.kubernetes.io/managed-by=camel-kubeflow-trainer.")
    private String labelSelector;

    @UriParam(label = "consumer", defaultValue = "false",
              description = "Also emit one event for each TrainJob that exists when the consumer starts, with its"
                            + " current status; otherwise only changes after the start are emitted.")
    private boolean emitExisting;

    @UriParam(label = "delete", defaultValue = "Background",
              description = "What happens to a deleted TrainJob's JobSet and pods: deleted by the garbage"
                            + " collector after the job (Background), before it (Foreground), or kept (Orphan).")
    private DeletionPropagation deletePropagation = DeletionPropagation.BACKGROUND;

    @UriParam(label = "consumer",
              description = "Name under which this route records each TrainJob end (Complete, Failed) it processed"
                            + " without error, as the annotation camelkubeflow.io/handled-NAME (NAME being this option); at start, ended jobs"
                            + " without it are emitted. Each end is then handled once across restarts (at least once"
                            + " if the app dies between handling and marking). Needs patch on trainjobs.")
    private String handledMark;

    @UriParam(label = "consumer", javaType = "java.time.Duration",
              description = "Also emit a Progress event for each running TrainJob whose progress changed, at most once"
                            + " per this interval: the trainerStatus its training code reports (percent, remaining"
                            + " time, metrics), else its ready/total trainer pods (then also list/watch on pods). Off"
                            + " when unset or 0.")
    private long progressInterval;

    @UriParam(label = "consumer,list", defaultValue = "false",
              description = "Watch (or list) every namespace instead of the namespace option's (needs cluster-wide"
                            + " list/watch).")
    private boolean allNamespaces;

    @UriParam(label = "logs", defaultValue = "trainer",
              description = "Which step's logs: trainer (the MPI launcher if any, else node-0), node-N, launcher,"
                            + " dataset-initializer, model-initializer, or all (every node and launcher, merged, each"
                            + " line prefixed with [step]).")
    private String logStep = "trainer";

    @UriParam(label = "logs", defaultValue = "false",
              description = "Follow the log until the step's pods end, resuming broken streams without repeating or"
                            + " losing lines; otherwise read what is there now.")
    private boolean follow;

    @UriParam(label = "logs", description = "Start from the last N lines.")
    private Integer tailLines;

    @UriParam(label = "logs", description = "Start from lines of the last N seconds.")
    private Integer sinceSeconds;

    @UriParam(label = "logs", defaultValue = "8388608",
              description = "Most bytes of log kept in the message body; beyond it the oldest lines are dropped (the"
                            + " CamelKubeflowTrainerLogTruncated header says so). Lines sent to logDestination are"
                            + " not limited.")
    private long maxLogBytes = 8L * 1024 * 1024;

    @UriParam(label = "logs", defaultValue = "10m", javaType = "java.time.Duration",
              description = "How long to wait for the step's pod to start before failing. 0: no wait, the log"
                            + " as it is now, failing at once when no pod to read has started.")
    private long logStartTimeout = 600_000L;

    @UriParam(label = "logs",
              description = "An endpoint URI that receives the log as it is read, one exchange per chunk of"
                            + " logChunkLines lines (e.g. direct:trainingLog, kafka:training-logs).")
    private String logDestination;

    @UriParam(label = "logs", defaultValue = "1", description = "Lines per exchange sent to logDestination.")
    private int logChunkLines = 1;

    @UriParam(label = "wait", defaultValue = "Complete",
              description = "The status to wait for. Running is also reached by a job that already completed.")
    private WaitTarget waitFor = WaitTarget.COMPLETE;

    @UriParam(label = "wait", defaultValue = "1h", javaType = "java.time.Duration",
              description = "How long to wait before failing with TrainJobWaitTimeoutException; 0 waits without limit."
                            + " The TrainJob itself is left running.")
    private long waitTimeout = 3_600_000L;

    @UriParam(label = "wait", defaultValue = "0", javaType = "java.time.Duration",
              description = "How long the job may wait in a Kueue queue (suspended by Kueue, not admitted, or evicted"
                            + " and waiting again) before the wait fails with TrainJobQueueTimeoutException, a"
                            + " TrainJobWaitTimeoutException saying what Kueue said of it (e.g. not enough quota);"
                            + " counted from when the wait sees it queued, anew after each eviction. 0: no bound of"
                            + " its own (waitTimeout still applies).")
    private long queueTimeout;

    @UriParam(label = "wait", defaultValue = "true",
              description = "Throw TrainJobFailedException when the job ends otherwise than waited for (fails while"
                            + " Complete is wanted, ...); when false, the outcome is only reported in headers.")
    private boolean throwOnFailure = true;

    @UriParam(label = "wait", defaultValue = "false",
              description = "When the wait times out, delete the TrainJob (as deletePropagation says), so an exchange"
                            + " given up on leaves no job running; the exchange still fails with"
                            + " TrainJobWaitTimeoutException, with the deletion recorded as a suppressed exception.")
    private boolean deleteOnTimeout;

    @UriParam(label = "train", javaType = "java.time.Duration", defaultValue = "0",
              description = "When above 0, delete the TrainJob (Background: with its JobSet and pods) this long after"
                            + " it finished, or after the logs operation last read its log to the end, whichever is"
                            + " later. The component checks every ttlCheckInterval; the TTL is kept on the job, so it"
                            + " holds across restarts.")
    private long ttlAfterFinished;

    @UriParam(label = "security", defaultValue = "false",
              description = "Act within the rights of the caller in the exchange property"
                            + " CamelKubeflowTrainerCaller (an io.camelkubeflow.trainer.access.Caller the route's"
                            + " authentication step sets; no header can name a caller): before it acts, each operation"
                            + " asks the API server (SubjectAccessReview) whether that caller may do it itself: train, create"
                            + " trainjobs in the namespace and get every Secret and ConfigMap the TrainJob references;"
                            + " get and wait, get trainjobs; list, list them; logs, get the TrainJob and get pods/log; delete, delete them;"
                            + " suspend and resume, patch them. A message without a caller, or a denied one, fails with"
                            + " AccessDeniedException before anything is written. Needs create on"
                            + " subjectaccessreviews.authorization.k8s.io.")
    private boolean authorizeCaller;
    @UriParam(label = "security",
              description = "What a request may ask for (io.camelkubeflow.trainer.job.RequestPolicy, e.g."
                            + " #trainRequestPolicy): namespaces, runtimes, image and command overrides, the Secrets and"
                            + " ConfigMaps it may reference, maxima for nodes, processes, GPUs, CPU, memory, run time"
                            + " and script size. A request asking for more fails with PolicyViolationException naming"
                            + " the rule, before anything is written. Unset: anything valid.")
    private RequestPolicy policy;
    @UriParam(label = "advanced",
              description = "Where workspaces too large for a ConfigMap (over 1,040,000 bytes compressed) are kept: an"
                            + " io.camelkubeflow.trainer.workspace.WorkspaceStore (e.g. #s3WorkspaceStore, an S3"
                            + " bucket). Each archive is stored once under its digest, and the pods fetch it with a"
                            + " short-lived read-only URL. Unset: such workspaces are refused.")
    private WorkspaceStore workspaceStore;
    @UriParam(label = "advanced",
              description = "Fetches workspaces named by locations of its kind, e.g. #s3WorkspaceStore for"
                            + " s3://bucket/key of the app's S3 (an io.camelkubeflow.trainer.workspace.WorkspaceFetcher)."
                            + " Under a request policy only locations under its workspace sources are fetched.")
    private WorkspaceFetcher workspaceFetcher;
    @UriParam(label = "common,security",
              description = "Kubernetes API server URL; unset: kubeconfig or in-cluster config. sandbox: a local"
                            + " sandbox started in this JVM (an emulated API server with Kubeflow Trainer, whose"
                            + " controller runs TrainJobs without running their code; needs"
                            + " io.camelkubeflow:camel-kubeflow-trainer-sandbox on the classpath).")
    private String masterUrl;
    @UriParam(label = "security", secret = true,
              description = "Bearer token.")
    private String oauthToken;
    @UriParam(label = "security", secret = true,
              description = "Username for basic auth.")
    private String username;
    @UriParam(label = "security", secret = true,
              description = "Password for basic auth.")
    private String password;
    @UriParam(label = "security",
              description = "CA certificate data.")
    private String caCertData;
    @UriParam(label = "security",
              description = "CA certificate file.")
    private String caCertFile;
    @UriParam(label = "security",
              description = "Client certificate data.")
    private String clientCertData;
    @UriParam(label = "security",
              description = "Client certificate file.")
    private String clientCertFile;
    @UriParam(label = "security", secret = true,
              description = "Client key data.")
    private String clientKeyData;
    @UriParam(label = "security",
              description = "Client key file.")
    private String clientKeyFile;
    @UriParam(label = "security",
              description = "Client key algorithm.")
    private String clientKeyAlgo;
    @UriParam(label = "security", secret = true,
              description = "Client key passphrase.")
    private String clientKeyPassphrase;
    @UriParam(label = "security",
              description = "Trust the API server's certificate without checking it.")
    private Boolean trustCerts;
    @UriParam(label = "advanced",
              description = "Connection timeout in milliseconds.")
    private Integer connectionTimeout;

    public KubernetesClient getKubernetesClient() {
        return kubernetesClient;
    }

    public void setKubernetesClient(KubernetesClient kubernetesClient) {
        this.kubernetesClient = kubernetesClient;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getRuntime() {
        return runtime;
    }

    public void setRuntime(String runtime) {
        this.runtime = runtime;
    }

    public RuntimeKind getRuntimeKind() {
        return runtimeKind;
    }

    public void setRuntimeKind(RuntimeKind runtimeKind) {
        this.runtimeKind = runtimeKind;
    }

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public Launcher getLauncher() {
        return launcher;
    }

    public void setLauncher(Launcher launcher) {
        this.launcher = launcher;
    }

    public String getImageRules() {
        return imageRules;
    }

    public void setImageRules(String imageRules) {
        this.imageRules = imageRules;
    }

    public String getCommand() {
        return command;
    }

    public void setCommand(String command) {
        this.command = command;
    }

    public String getArgs() {
        return args;
    }

    public void setArgs(String args) {
        this.args = args;
    }

    public String getPythonFile() {
        return pythonFile;
    }

    public void setPythonFile(String pythonFile) {
        this.pythonFile = pythonFile;
    }

    public String getScript() {
        return script;
    }

    public void setScript(String script) {
        this.script = script;
    }

    public String getWorkspace() {
        return workspace;
    }

    public void setWorkspace(String workspace) {
        this.workspace = workspace;
    }

    public String getScriptFileName() {
        return scriptFileName;
    }

    public void setScriptFileName(String scriptFileName) {
        this.scriptFileName = scriptFileName;
    }

    public BodyType getBodyType() {
        return bodyType;
    }

    public void setBodyType(BodyType bodyType) {
        this.bodyType = bodyType;
    }

    public String getPackages() {
        return packages;
    }

    public void setPackages(String packages) {
        this.packages = packages;
    }

    public String getPipIndexUrls() {
        return pipIndexUrls;
    }

    public void setPipIndexUrls(String pipIndexUrls) {
        this.pipIndexUrls = pipIndexUrls;
    }

    public Integer getNumNodes() {
        return numNodes;
    }

    public void setNumNodes(Integer numNodes) {
        this.numNodes = numNodes;
    }

    public Integer getNumProcPerNode() {
        return numProcPerNode;
    }

    public void setNumProcPerNode(Integer numProcPerNode) {
        this.numProcPerNode = numProcPerNode;
    }

    public String getCpu() {
        return cpu;
    }

    public void setCpu(String cpu) {
        this.cpu = cpu;
    }

    public String getMemory() {
        return memory;
    }

    public void setMemory(String memory) {
        this.memory = memory;
    }

    public String getGpu() {
        return gpu;
    }

    public void setGpu(String gpu) {
        this.gpu = gpu;
    }

    public String getDatasetUri() {
        return datasetUri;
    }

    public void setDatasetUri(String datasetUri) {
        this.datasetUri = datasetUri;
    }

    public String getDatasetSecret() {
        return datasetSecret;
    }

    public void setDatasetSecret(String datasetSecret) {
        this.datasetSecret = datasetSecret;
    }

    public String getDatasetKind() {
        return datasetKind;
    }

    public void setDatasetKind(String datasetKind) {
        this.datasetKind = datasetKind;
    }

    public String getDatasetIgnorePatterns() {
        return datasetIgnorePatterns;
    }

    public void setDatasetIgnorePatterns(String datasetIgnorePatterns) {
        this.datasetIgnorePatterns = datasetIgnorePatterns;
    }

    public String getDatasetAccessToken() {
        return datasetAccessToken;
    }

    public void setDatasetAccessToken(String datasetAccessToken) {
        this.datasetAccessToken = datasetAccessToken;
    }

    public String getDatasetEndpoint() {
        return datasetEndpoint;
    }

    public void setDatasetEndpoint(String datasetEndpoint) {
        this.datasetEndpoint = datasetEndpoint;
    }

    public String getDatasetRegion() {
        return datasetRegion;
    }

    public void setDatasetRegion(String datasetRegion) {
        this.datasetRegion = datasetRegion;
    }

    public String getDatasetRoleArn() {
        return datasetRoleArn;
    }

    public void setDatasetRoleArn(String datasetRoleArn) {
        this.datasetRoleArn = datasetRoleArn;
    }

    public String getDatasetAccessKeyId() {
        return datasetAccessKeyId;
    }

    public void setDatasetAccessKeyId(String datasetAccessKeyId) {
        this.datasetAccessKeyId = datasetAccessKeyId;
    }

    public String getDatasetSecretAccessKey() {
        return datasetSecretAccessKey;
    }

    public void setDatasetSecretAccessKey(String datasetSecretAccessKey) {
        this.datasetSecretAccessKey = datasetSecretAccessKey;
    }

    public String getDatasetCacheMetadataLoc() {
        return datasetCacheMetadataLoc;
    }

    public void setDatasetCacheMetadataLoc(String datasetCacheMetadataLoc) {
        this.datasetCacheMetadataLoc = datasetCacheMetadataLoc;
    }

    public Integer getDatasetCacheDataNodes() {
        return datasetCacheDataNodes;
    }

    public void setDatasetCacheDataNodes(Integer datasetCacheDataNodes) {
        this.datasetCacheDataNodes = datasetCacheDataNodes;
    }

    public String getDatasetCacheHeadCpu() {
        return datasetCacheHeadCpu;
    }

    public void setDatasetCacheHeadCpu(String datasetCacheHeadCpu) {
        this.datasetCacheHeadCpu = datasetCacheHeadCpu;
    }

    public String getDatasetCacheHeadMemory() {
        return datasetCacheHeadMemory;
    }

    public void setDatasetCacheHeadMemory(String datasetCacheHeadMemory) {
        this.datasetCacheHeadMemory = datasetCacheHeadMemory;
    }

    public String getDatasetCacheWorkerCpu() {
        return datasetCacheWorkerCpu;
    }

    public void setDatasetCacheWorkerCpu(String datasetCacheWorkerCpu) {
        this.datasetCacheWorkerCpu = datasetCacheWorkerCpu;
    }

    public String getDatasetCacheWorkerMemory() {
        return datasetCacheWorkerMemory;
    }

    public void setDatasetCacheWorkerMemory(String datasetCacheWorkerMemory) {
        this.datasetCacheWorkerMemory = datasetCacheWorkerMemory;
    }

    public String getDatasetCacheIamRole() {
        return datasetCacheIamRole;
    }

    public void setDatasetCacheIamRole(String datasetCacheIamRole) {
        this.datasetCacheIamRole = datasetCacheIamRole;
    }

    public String getModelUri() {
        return modelUri;
    }

    public void setModelUri(String modelUri) {
        this.modelUri = modelUri;
    }

    public String getModelSecret() {
        return modelSecret;
    }

    public void setModelSecret(String modelSecret) {
        this.modelSecret = modelSecret;
    }

    public String getModelKind() {
        return modelKind;
    }

    public void setModelKind(String modelKind) {
        this.modelKind = modelKind;
    }

    public String getModelIgnorePatterns() {
        return modelIgnorePatterns;
    }

    public void setModelIgnorePatterns(String modelIgnorePatterns) {
        this.modelIgnorePatterns = modelIgnorePatterns;
    }

    public String getModelAccessToken() {
        return modelAccessToken;
    }

    public void setModelAccessToken(String modelAccessToken) {
        this.modelAccessToken = modelAccessToken;
    }

    public String getModelEndpoint() {
        return modelEndpoint;
    }

    public void setModelEndpoint(String modelEndpoint) {
        this.modelEndpoint = modelEndpoint;
    }

    public String getModelRegion() {
        return modelRegion;
    }

    public void setModelRegion(String modelRegion) {
        this.modelRegion = modelRegion;
    }

    public String getModelRoleArn() {
        return modelRoleArn;
    }

    public void setModelRoleArn(String modelRoleArn) {
        this.modelRoleArn = modelRoleArn;
    }

    public String getModelAccessKeyId() {
        return modelAccessKeyId;
    }

    public void setModelAccessKeyId(String modelAccessKeyId) {
        this.modelAccessKeyId = modelAccessKeyId;
    }

    public String getModelSecretAccessKey() {
        return modelSecretAccessKey;
    }

    public void setModelSecretAccessKey(String modelSecretAccessKey) {
        this.modelSecretAccessKey = modelSecretAccessKey;
    }

    public String getOutputUri() {
        return outputUri;
    }

    public void setOutputUri(String outputUri) {
        this.outputUri = outputUri;
    }

    public Boolean getImageEntrypoint() {
        return imageEntrypoint;
    }

    public void setImageEntrypoint(Boolean imageEntrypoint) {
        this.imageEntrypoint = imageEntrypoint;
    }

    public String getTorchtuneDtype() {
        return torchtuneDtype;
    }

    public void setTorchtuneDtype(String torchtuneDtype) {
        this.torchtuneDtype = torchtuneDtype;
    }

    public Integer getTorchtuneBatchSize() {
        return torchtuneBatchSize;
    }

    public void setTorchtuneBatchSize(Integer torchtuneBatchSize) {
        this.torchtuneBatchSize = torchtuneBatchSize;
    }

    public Integer getTorchtuneEpochs() {
        return torchtuneEpochs;
    }

    public void setTorchtuneEpochs(Integer torchtuneEpochs) {
        this.torchtuneEpochs = torchtuneEpochs;
    }

    public String getTorchtuneLoss() {
        return torchtuneLoss;
    }

    public void setTorchtuneLoss(String torchtuneLoss) {
        this.torchtuneLoss = torchtuneLoss;
    }

    public String getTorchtuneLoraAttnModules() {
        return torchtuneLoraAttnModules;
    }

    public void setTorchtuneLoraAttnModules(String torchtuneLoraAttnModules) {
        this.torchtuneLoraAttnModules = torchtuneLoraAttnModules;
    }

    public Integer getTorchtuneLoraRank() {
        return torchtuneLoraRank;
    }

    public void setTorchtuneLoraRank(Integer torchtuneLoraRank) {
        this.torchtuneLoraRank = torchtuneLoraRank;
    }

    public Integer getTorchtuneLoraAlpha() {
        return torchtuneLoraAlpha;
    }

    public void setTorchtuneLoraAlpha(Integer torchtuneLoraAlpha) {
        this.torchtuneLoraAlpha = torchtuneLoraAlpha;
    }

    public Double getTorchtuneLoraDropout() {
        return torchtuneLoraDropout;
    }

    public void setTorchtuneLoraDropout(Double torchtuneLoraDropout) {
        this.torchtuneLoraDropout = torchtuneLoraDropout;
    }

    public Boolean getTorchtuneLoraApplyToMlp() {
        return torchtuneLoraApplyToMlp;
    }

    public void setTorchtuneLoraApplyToMlp(Boolean torchtuneLoraApplyToMlp) {
        this.torchtuneLoraApplyToMlp = torchtuneLoraApplyToMlp;
    }

    public Boolean getTorchtuneLoraApplyToOutput() {
        return torchtuneLoraApplyToOutput;
    }

    public void setTorchtuneLoraApplyToOutput(Boolean torchtuneLoraApplyToOutput) {
        this.torchtuneLoraApplyToOutput = torchtuneLoraApplyToOutput;
    }

    public Boolean getTorchtuneQuantizeBase() {
        return torchtuneQuantizeBase;
    }

    public void setTorchtuneQuantizeBase(Boolean torchtuneQuantizeBase) {
        this.torchtuneQuantizeBase = torchtuneQuantizeBase;
    }

    public Boolean getTorchtuneUseDora() {
        return torchtuneUseDora;
    }

    public void setTorchtuneUseDora(Boolean torchtuneUseDora) {
        this.torchtuneUseDora = torchtuneUseDora;
    }

    public String getTorchtuneDatasetSource() {
        return torchtuneDatasetSource;
    }

    public void setTorchtuneDatasetSource(String torchtuneDatasetSource) {
        this.torchtuneDatasetSource = torchtuneDatasetSource;
    }

    public String getTorchtuneDatasetSplit() {
        return torchtuneDatasetSplit;
    }

    public void setTorchtuneDatasetSplit(String torchtuneDatasetSplit) {
        this.torchtuneDatasetSplit = torchtuneDatasetSplit;
    }

    public Boolean getTorchtuneTrainOnInput() {
        return torchtuneTrainOnInput;
    }

    public void setTorchtuneTrainOnInput(Boolean torchtuneTrainOnInput) {
        this.torchtuneTrainOnInput = torchtuneTrainOnInput;
    }

    public String getTorchtuneNewSystemPrompt() {
        return torchtuneNewSystemPrompt;
    }

    public void setTorchtuneNewSystemPrompt(String torchtuneNewSystemPrompt) {
        this.torchtuneNewSystemPrompt = torchtuneNewSystemPrompt;
    }

    public Map<String, Object> getTorchtuneColumnMap() {
        return torchtuneColumnMap;
    }

    public void setTorchtuneColumnMap(Map<String, Object> torchtuneColumnMap) {
        this.torchtuneColumnMap = torchtuneColumnMap;
    }

    public Map<String, Object> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, Object> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

    public String getTolerations() {
        return tolerations;
    }

    public void setTolerations(String tolerations) {
        this.tolerations = tolerations;
    }

    public String getNodeAffinity() {
        return nodeAffinity;
    }

    public void setNodeAffinity(String nodeAffinity) {
        this.nodeAffinity = nodeAffinity;
    }

    public String getVolumes() {
        return volumes;
    }

    public void setVolumes(String volumes) {
        this.volumes = volumes;
    }

    public String getServiceAccountName() {
        return serviceAccountName;
    }

    public void setServiceAccountName(String serviceAccountName) {
        this.serviceAccountName = serviceAccountName;
    }

    public String getImagePullSecrets() {
        return imagePullSecrets;
    }

    public void setImagePullSecrets(String imagePullSecrets) {
        this.imagePullSecrets = imagePullSecrets;
    }

    public Map<String, Object> getPodSecurityContext() {
        return podSecurityContext;
    }

    public void setPodSecurityContext(Map<String, Object> podSecurityContext) {
        this.podSecurityContext = podSecurityContext;
    }

    public Map<String, Object> getSecurityContext() {
        return securityContext;
    }

    public void setSecurityContext(Map<String, Object> securityContext) {
        this.securityContext = securityContext;
    }

    public String getPodJobs() {
        return podJobs;
    }

    public void setPodJobs(String podJobs) {
        this.podJobs = podJobs;
    }

    public Long getActiveDeadlineSeconds() {
        return activeDeadlineSeconds;
    }

    public void setActiveDeadlineSeconds(Long activeDeadlineSeconds) {
        this.activeDeadlineSeconds = activeDeadlineSeconds;
    }

    public Boolean getSuspend() {
        return suspend;
    }

    public void setSuspend(Boolean suspend) {
        this.suspend = suspend;
    }

    public String getManagedBy() {
        return managedBy;
    }

    public void setManagedBy(String managedBy) {
        this.managedBy = managedBy;
    }

    public String getJobName() {
        return jobName;
    }

    public void setJobName(String jobName) {
        this.jobName = jobName;
    }

    public String getJobNamePrefix() {
        return jobNamePrefix;
    }

    public void setJobNamePrefix(String jobNamePrefix) {
        this.jobNamePrefix = jobNamePrefix;
    }

    public String getIdempotencyKey() {
        return idempotencyKey;
    }

    public void setIdempotencyKey(String idempotencyKey) {
        this.idempotencyKey = idempotencyKey;
    }

    public String getIdempotencyScope() {
        return idempotencyScope;
    }

    public void setIdempotencyScope(String idempotencyScope) {
        this.idempotencyScope = idempotencyScope;
    }

    public Map<String, Object> getEnv() {
        return env;
    }

    public void setEnv(Map<String, Object> env) {
        this.env = env;
    }

    public Map<String, Object> getLabels() {
        return labels;
    }

    public void setLabels(Map<String, Object> labels) {
        this.labels = labels;
    }

    public Map<String, Object> getAnnotations() {
        return annotations;
    }

    public void setAnnotations(Map<String, Object> annotations) {
        this.annotations = annotations;
    }

    public String getQueue() {
        return queue;
    }

    public void setQueue(String queue) {
        this.queue = queue;
    }

    public String getPriorityClass() {
        return priorityClass;
    }

    public void setPriorityClass(String priorityClass) {
        this.priorityClass = priorityClass;
    }

    public Map<String, Object> getResources() {
        return resources;
    }

    public void setResources(Map<String, Object> resources) {
        this.resources = resources;
    }

    public WorkspaceFetcher getWorkspaceFetcher() {
        return workspaceFetcher;
    }

    public void setWorkspaceFetcher(WorkspaceFetcher workspaceFetcher) {
        this.workspaceFetcher = workspaceFetcher;
    }

    public WorkspaceStore getWorkspaceStore() {
        return workspaceStore;
    }

    public void setWorkspaceStore(WorkspaceStore workspaceStore) {
        this.workspaceStore = workspaceStore;
    }

    public RequestPolicy getPolicy() {
        return policy;
    }

    public void setPolicy(RequestPolicy policy) {
        this.policy = policy;
    }

    public boolean isAuthorizeCaller() {
        return authorizeCaller;
    }

    public void setAuthorizeCaller(boolean authorizeCaller) {
        this.authorizeCaller = authorizeCaller;
    }

    public String getMasterUrl() {
        return masterUrl;
    }

    public void setMasterUrl(String masterUrl) {
        this.masterUrl = masterUrl;
    }

    public String getOauthToken() {
        return oauthToken;
    }

    public void setOauthToken(String oauthToken) {
        this.oauthToken = oauthToken;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public String getCaCertData() {
        return caCertData;
    }

    public void setCaCertData(String caCertData) {
        this.caCertData = caCertData;
    }

    public String getCaCertFile() {
        return caCertFile;
    }

    public void setCaCertFile(String caCertFile) {
        this.caCertFile = caCertFile;
    }

    public String getClientCertData() {
        return clientCertData;
    }

    public void setClientCertData(String clientCertData) {
        this.clientCertData = clientCertData;
    }

    public String getClientCertFile() {
        return clientCertFile;
    }

    public void setClientCertFile(String clientCertFile) {
        this.clientCertFile = clientCertFile;
    }

    public String getClientKeyData() {
        return clientKeyData;
    }

    public void setClientKeyData(String clientKeyData) {
        this.clientKeyData = clientKeyData;
    }

    public String getClientKeyFile() {
        return clientKeyFile;
    }

    public void setClientKeyFile(String clientKeyFile) {
        this.clientKeyFile = clientKeyFile;
    }

    public String getClientKeyAlgo() {
        return clientKeyAlgo;
    }

    public void setClientKeyAlgo(String clientKeyAlgo) {
        this.clientKeyAlgo = clientKeyAlgo;
    }

    public String getClientKeyPassphrase() {
        return clientKeyPassphrase;
    }

    public void setClientKeyPassphrase(String clientKeyPassphrase) {
        this.clientKeyPassphrase = clientKeyPassphrase;
    }

    public Boolean getTrustCerts() {
        return trustCerts;
    }

    public void setTrustCerts(Boolean trustCerts) {
        this.trustCerts = trustCerts;
    }

    public Integer getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Integer connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }


    public WaitTarget getWaitFor() {
        return waitFor;
    }

    public void setWaitFor(WaitTarget waitFor) {
        this.waitFor = waitFor;
    }

    public long getQueueTimeout() {
        return queueTimeout;
    }

    public void setQueueTimeout(long queueTimeout) {
        this.queueTimeout = queueTimeout;
    }

    public long getWaitTimeout() {
        return waitTimeout;
    }

    public void setWaitTimeout(long waitTimeout) {
        this.waitTimeout = waitTimeout;
    }

    public long getTtlAfterFinished() {
        return ttlAfterFinished;
    }

    public void setTtlAfterFinished(long ttlAfterFinished) {
        this.ttlAfterFinished = ttlAfterFinished;
    }

    public boolean isDeleteOnTimeout() {
        return deleteOnTimeout;
    }

    public void setDeleteOnTimeout(boolean deleteOnTimeout) {
        this.deleteOnTimeout = deleteOnTimeout;
    }

    public boolean isThrowOnFailure() {
        return throwOnFailure;
    }

    public void setThrowOnFailure(boolean throwOnFailure) {
        this.throwOnFailure = throwOnFailure;
    }

    public String getLogStep() {
        return logStep;
    }

    public void setLogStep(String logStep) {
        this.logStep = logStep;
    }

    public boolean isFollow() {
        return follow;
    }

    public void setFollow(boolean follow) {
        this.follow = follow;
    }

    public Integer getTailLines() {
        return tailLines;
    }

    public void setTailLines(Integer tailLines) {
        this.tailLines = tailLines;
    }

    public Integer getSinceSeconds() {
        return sinceSeconds;
    }

    public void setSinceSeconds(Integer sinceSeconds) {
        this.sinceSeconds = sinceSeconds;
    }

    public long getMaxLogBytes() {
        return maxLogBytes;
    }

    public void setMaxLogBytes(long maxLogBytes) {
        this.maxLogBytes = maxLogBytes;
    }

    public long getLogStartTimeout() {
        return logStartTimeout;
    }

    public void setLogStartTimeout(long logStartTimeout) {
        this.logStartTimeout = logStartTimeout;
    }

    public String getLogDestination() {
        return logDestination;
    }

    public void setLogDestination(String logDestination) {
        this.logDestination = logDestination;
    }

    public int getApiRetryAttempts() {
        return apiRetryAttempts;
    }

    public void setApiRetryAttempts(int apiRetryAttempts) {
        this.apiRetryAttempts = apiRetryAttempts;
    }

    public long getApiRetryBackoff() {
        return apiRetryBackoff;
    }

    public void setApiRetryBackoff(long apiRetryBackoff) {
        this.apiRetryBackoff = apiRetryBackoff;
    }

    public int getLogChunkLines() {
        return logChunkLines;
    }

    public void setLogChunkLines(int logChunkLines) {
        this.logChunkLines = logChunkLines;
    }

    public String getLabelSelector() {
        return labelSelector;
    }

    public void setLabelSelector(String labelSelector) {
        this.labelSelector = labelSelector;
    }

    public DeletionPropagation getDeletePropagation() {
        return deletePropagation;
    }

    public void setDeletePropagation(DeletionPropagation deletePropagation) {
        this.deletePropagation = deletePropagation;
    }

    public String getHandledMark() {
        return handledMark;
    }

    public void setHandledMark(String handledMark) {
        this.handledMark = handledMark;
    }

    public long getProgressInterval() {
        return progressInterval;
    }

    public void setProgressInterval(long progressInterval) {
        this.progressInterval = progressInterval;
    }

    public boolean isEmitExisting() {
        return emitExisting;
    }

    public void setEmitExisting(boolean emitExisting) {
        this.emitExisting = emitExisting;
    }

    public boolean isAllNamespaces() {
        return allNamespaces;
    }

    public void setAllNamespaces(boolean allNamespaces) {
        this.allNamespaces = allNamespaces;
    }

    public String getRunKey() {
        return runKey;
    }

    public void setRunKey(String runKey) {
        this.runKey = runKey;
    }

    public boolean isSkipIfRunning() {
        return skipIfRunning;
    }

    public void setSkipIfRunning(boolean skipIfRunning) {
        this.skipIfRunning = skipIfRunning;
    }

    public Integer getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(Integer maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public String getInFlightGroup() {
        return inFlightGroup;
    }

    public void setInFlightGroup(String inFlightGroup) {
        this.inFlightGroup = inFlightGroup;
    }

    /**
     * A copy for one endpoint: the component's configuration is the default of every endpoint, which then sets its own
     * options on the copy. The multi-value maps are copied too, so an endpoint's env.X never reaches another.
     */
    public KubeflowTrainerConfiguration copy() {
        try {
            KubeflowTrainerConfiguration copy = (KubeflowTrainerConfiguration) clone();
            copy.env = copyOf(env);
            copy.labels = copyOf(labels);
            copy.annotations = copyOf(annotations);
            copy.resources = copyOf(resources);
            copy.nodeSelector = copyOf(nodeSelector);
            copy.podSecurityContext = copyOf(podSecurityContext);
            copy.securityContext = copyOf(securityContext);
            return copy;
        } catch (CloneNotSupportedException e) {
            throw new RuntimeCamelException(e);
        }
    }

    private static Map<String, Object> copyOf(Map<String, Object> map) {
        return map == null ? null : new LinkedHashMap<>(map);
    }
}
