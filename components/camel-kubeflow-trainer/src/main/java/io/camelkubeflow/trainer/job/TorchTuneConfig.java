package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The typed settings of the torchtune builtin trainer (the Kubeflow SDK's {@code BuiltinTrainer(TorchTuneConfig(...))}),
 * each optional, and the {@code tune run} config overrides they become. The SDK's groups are implied by their fields:
 * any {@code torchtuneLora*}, {@code torchtuneQuantizeBase} or {@code torchtuneUseDora} is its {@code peft_config}
 * (a {@code LoraConfig}, whose attention modules default to q_proj, v_proj, output_proj), any
 * {@code torchtuneDataset*}, {@code torchtuneTrainOnInput}, {@code torchtuneNewSystemPrompt} or
 * {@code torchtuneColumnMap} its {@code dataset_preprocess_config}. The args are the SDK 0.5.0's, word for word and in
 * its order, so the Trainer's torch plugin picks the same recipe and config from them.
 */
public final class TorchTuneConfig {
    /** The program the Trainer's torch plugin completes with the recipe, config and runtime paths. */
    public static final List<String> ENTRYPOINT = List.of("tune", "run");

    static final Set<String> DTYPES = Set.of("bf16", "fp32");
    static final Set<String> LOSSES = Set.of("torchtune.modules.loss.CEWithChunkedOutputLoss");
    static final Set<String> DATASET_SOURCES = Set.of("json", "csv", "parquet", "arrow", "text", "xml");
    static final List<String> LORA_ATTN_MODULES = List.of("q_proj", "k_proj", "v_proj", "output_proj");
    static final List<String> DEFAULT_LORA_ATTN_MODULES = List.of("q_proj", "v_proj", "output_proj");
    static final Set<String> COLUMN_MAP_KEYS = Set.of("input", "output");
    /** The configs the runtime sets and the Trainer's webhook keeps out of trainer.args. */
    static final Set<String> RUNTIME_CONFIGS =
            Set.of("output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file");
    /** The models the Trainer v2.3 torchtune trainer supports, as its webhook reads them from the runtime's name. */
    static final Set<String> MODELS = Set.of("llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B");

    static final String MULTI_NODE_MODEL = "llama3_3/70B";
    static final String QLORA_REFUSED_MODEL = "qwen2_5/1.5B";
    static final Set<String> SINGLE_DEVICE_QLORA_MODELS = Set.of("llama3_2/1B", "llama3_2/3B");
    /** Where the Trainer's dataset initializer puts the dataset, as the SDK names it in the args. */
    static final String DATASET_PATH = "/workspace/dataset";

    private static final String INSTRUCT_DATASET = "torchtune.datasets.instruct_dataset";

    private String dtype;
    private Integer batchSize;
    private Integer epochs;
    private String loss;
    private List<String> loraAttnModules;
    private Integer loraRank;
    private Integer loraAlpha;
    private Double loraDropout;
    private Boolean loraApplyToMlp;
    private Boolean loraApplyToOutput;
    private Boolean quantizeBase;
    private Boolean useDora;
    private String datasetSource;
    private String datasetSplit;
    private Boolean trainOnInput;
    private String newSystemPrompt;
    private Map<String, String> columnMap;

    /** This layer's values overridden by every value {@code top} sets; a column map comes whole from one layer. */
    TorchTuneConfig overlay(TorchTuneConfig top) {
        TorchTuneConfig merged = new TorchTuneConfig();
        merged.dtype = pick(top.dtype, dtype);
        merged.batchSize = pick(top.batchSize, batchSize);
        merged.epochs = pick(top.epochs, epochs);
        merged.loss = pick(top.loss, loss);
        merged.loraAttnModules = pick(top.loraAttnModules, loraAttnModules);
        merged.loraRank = pick(top.loraRank, loraRank);
        merged.loraAlpha = pick(top.loraAlpha, loraAlpha);
        merged.loraDropout = pick(top.loraDropout, loraDropout);
        merged.loraApplyToMlp = pick(top.loraApplyToMlp, loraApplyToMlp);
        merged.loraApplyToOutput = pick(top.loraApplyToOutput, loraApplyToOutput);
        merged.quantizeBase = pick(top.quantizeBase, quantizeBase);
        merged.useDora = pick(top.useDora, useDora);
        merged.datasetSource = pick(top.datasetSource, datasetSource);
        merged.datasetSplit = pick(top.datasetSplit, datasetSplit);
        merged.trainOnInput = pick(top.trainOnInput, trainOnInput);
        merged.newSystemPrompt = pick(top.newSystemPrompt, newSystemPrompt);
        Map<String, String> columns = pick(top.columnMap, columnMap);
        merged.columnMap = columns == null ? null : new LinkedHashMap<>(columns);
        return merged;
    }

    private static <T> T pick(T top, T bottom) {
        return top != null ? top : bottom;
    }

    /** Whether any field is set: the request asks for the builtin trainer's typed config. */
    public boolean isSet() {
        return dtype != null || batchSize != null || epochs != null || loss != null || hasLora() || hasDataset();
    }

    /** Whether the config turns LoRA on: its args then name the attention modules, which the Trainer looks for. */
    boolean hasLora() {
        return loraAttnModules != null
                || loraRank != null
                || loraAlpha != null
                || loraDropout != null
                || loraApplyToMlp != null
                || loraApplyToOutput != null
                || quantizeBase != null
                || useDora != null;
    }

    private boolean hasDataset() {
        return datasetSource != null
                || datasetSplit != null
                || trainOnInput != null
                || newSystemPrompt != null
                || columnMap != null;
    }

    /** The first field set, under the name callers write it: what a refusal of the whole config names. */
    String firstFieldSet() {
        Object[][] fields = {
            {TrainField.TORCHTUNE_DTYPE, dtype},
            {TrainField.TORCHTUNE_BATCH_SIZE, batchSize},
            {TrainField.TORCHTUNE_EPOCHS, epochs},
            {TrainField.TORCHTUNE_LOSS, loss},
            {TrainField.TORCHTUNE_LORA_ATTN_MODULES, loraAttnModules},
            {TrainField.TORCHTUNE_LORA_RANK, loraRank},
            {TrainField.TORCHTUNE_LORA_ALPHA, loraAlpha},
            {TrainField.TORCHTUNE_LORA_DROPOUT, loraDropout},
            {TrainField.TORCHTUNE_LORA_APPLY_TO_MLP, loraApplyToMlp},
            {TrainField.TORCHTUNE_LORA_APPLY_TO_OUTPUT, loraApplyToOutput},
            {TrainField.TORCHTUNE_QUANTIZE_BASE, quantizeBase},
            {TrainField.TORCHTUNE_USE_DORA, useDora},
            {TrainField.TORCHTUNE_DATASET_SOURCE, datasetSource},
            {TrainField.TORCHTUNE_DATASET_SPLIT, datasetSplit},
            {TrainField.TORCHTUNE_TRAIN_ON_INPUT, trainOnInput},
            {TrainField.TORCHTUNE_NEW_SYSTEM_PROMPT, newSystemPrompt},
            {TrainField.TORCHTUNE_COLUMN_MAP, columnMap}
        };
        for (Object[] field : fields) {
            if (field[1] != null) {
                return ((TrainField) field[0]).fieldName();
            }
        }
        return null;
    }

    /** Refuses what torchtune or the Trainer would not take, naming the field as callers write it. */
    void validate() {
        oneOf("torchtuneDtype", dtype, DTYPES);
        positive("torchtuneBatchSize", batchSize);
        positive("torchtuneEpochs", epochs);
        oneOf("torchtuneLoss", loss, LOSSES);
        if (loraAttnModules != null) {
            if (loraAttnModules.isEmpty()) {
                // without them the Trainer picks a full-finetune recipe and the LoRA settings are lost
                throw new InvalidOptionException(
                        "torchtuneLoraAttnModules",
                        "no attention modules given; name at" + " least one of " + LORA_ATTN_MODULES
                                + ", or leave it unset for q_proj,v_proj,output_proj");
            }
            for (String module : loraAttnModules) {
                if (!LORA_ATTN_MODULES.contains(module)) {
                    throw new InvalidOptionException(
                            "torchtuneLoraAttnModules",
                            "'" + module + "' is not an" + " attention module LoRA applies to; use "
                                    + LORA_ATTN_MODULES);
                }
            }
            if (Set.copyOf(loraAttnModules).size() != loraAttnModules.size()) {
                throw new InvalidOptionException(
                        "torchtuneLoraAttnModules", loraAttnModules + " names a module" + " twice; name each once");
            }
        }
        positive("torchtuneLoraRank", loraRank);
        positive("torchtuneLoraAlpha", loraAlpha);
        if (loraDropout != null && !(loraDropout >= 0 && loraDropout <= 1)) {
            throw new InvalidOptionException(
                    "torchtuneLoraDropout",
                    loraDropout + " is not a probability; give a" + " number from 0 to 1, e.g. 0.05");
        }
        oneOf("torchtuneDatasetSource", datasetSource, DATASET_SOURCES);
        text("torchtuneDatasetSplit", datasetSplit);
        text("torchtuneNewSystemPrompt", newSystemPrompt);
        if (columnMap != null) {
            columnMap.forEach((key, column) -> {
                if (!COLUMN_MAP_KEYS.contains(key)) {
                    throw new InvalidOptionException(
                            "torchtuneColumnMap." + key,
                            "'" + key + "' is not a column"
                                    + " torchtune's instruct dataset reads; map input and output, e.g. input=question");
                }
                // the map travels as a Python literal in one argument: quotes and backslashes would change its meaning
                if (column == null
                        || column.isEmpty()
                        || column.chars()
                                .anyMatch(c -> c == '\''
                                        || c == '"'
                                        || c == '\\'
                                        || c == '{'
                                        || c == '}'
                                        || Character.isISOControl(c))) {
                    throw new InvalidOptionException(
                            "torchtuneColumnMap." + key,
                            "'" + column + "' is not a column"
                                    + " name this can pass on; give a non-empty name without quotes, backslashes, braces or"
                                    + " control characters");
                }
            });
        }
    }

    /**
     * What the Trainer's webhook checks of a torchtune TrainJob against its runtime: the runtime names a model it
     * supports ({@code torchtune-<model>-<size>}); only the 70B model trains on more than one node; QLoRA never on
     * Qwen 2.5, and on Llama 3.2 only on a single device (one process, or one GPU per node).
     *
     * @param numProcPerNode the request's, or null ("auto" to the webhook)
     * @param gpusPerNode    the GPUs of the trainer's resources: the request's when it gives any, else the runtime's
     */
    void checkRuntime(String runtime, Integer numNodes, Integer numProcPerNode, long gpusPerNode) {
        String[] parts = runtime.split("-", -1);
        String model = parts.length == 3 ? parts[1].replace('.', '_') + "/" + parts[2].toUpperCase(Locale.ROOT) : null;
        if (model == null || !MODELS.contains(model)) {
            throw new InvalidOptionException(
                    "runtime",
                    "'" + runtime + "' names no model the Trainer's torchtune"
                            + " trainer supports (its webhook reads torchtune-<model>-<size>, one of " + MODELS
                            + "); pick"
                            + " one of its runtimes, e.g. torchtune-llama3.2-1b");
        }
        int nodes = numNodes == null ? 1 : numNodes;
        if (nodes > 1 && !MULTI_NODE_MODEL.equals(model)) {
            throw new InvalidOptionException(
                    "numNodes",
                    nodes + " nodes for " + model + ": the Trainer's webhook" + " allows more than one only for "
                            + MULTI_NODE_MODEL + "; set numNodes to 1");
        }
        if (Boolean.TRUE.equals(quantizeBase) && !Boolean.TRUE.equals(useDora)) {
            if (QLORA_REFUSED_MODEL.equals(model)) {
                throw new InvalidOptionException(
                        "torchtuneQuantizeBase",
                        "the Trainer's webhook refuses QLoRA for " + model
                                + "; drop torchtuneQuantizeBase or pick another model's runtime");
            }
            boolean singleDevice = nodes == 1 && (Integer.valueOf(1).equals(numProcPerNode) || gpusPerNode == 1);
            if (SINGLE_DEVICE_QLORA_MODELS.contains(model) && !singleDevice) {
                throw new InvalidOptionException(
                        "torchtuneQuantizeBase",
                        "QLoRA for " + model + " runs on a single"
                                + " device only (the Trainer's webhook refuses it on " + gpusPerNode
                                + " GPUs per node); set"
                                + " numProcPerNode=1 or gpu=1");
            }
        }
    }

    private static void oneOf(String field, String value, Set<String> allowed) {
        if (value != null && !allowed.contains(value)) {
            throw new InvalidOptionException(field, "'" + value + "' is not one of " + new TreeSet<>(allowed));
        }
    }

    private static void positive(String field, Integer value) {
        if (value != null && value < 1) {
            throw new InvalidOptionException(field, value + " is not allowed; give a whole number of at least 1");
        }
    }

    /** One argument carries the text: no control characters (a new line would end the override), not empty. */
    private static void text(String field, String value) {
        if (value != null && (value.isEmpty() || value.chars().anyMatch(Character::isISOControl))) {
            throw new InvalidOptionException(
                    field, "'" + value + "' must be non-empty text on one line, without" + " control characters");
        }
    }

    /**
     * The config overrides the SDK puts in trainer.args for the same config: dtype, batch size, epochs, loss, where the
     * initializer put a Hugging Face dataset, the LoRA settings, then the instruct dataset's.
     *
     * @param datasetUri the request's dataset initializer URI, or null
     */
    public List<String> args(String datasetUri) {
        List<String> args = new ArrayList<>();
        if (dtype != null) {
            args.add("dtype=" + dtype);
        }
        if (batchSize != null) {
            args.add("batch_size=" + batchSize);
        }
        if (epochs != null) {
            args.add("epochs=" + epochs);
        }
        if (loss != null) {
            args.add("loss=" + loss);
        }
        if (datasetUri != null && datasetUri.startsWith("hf://")) {
            args.add(huggingFaceDataset(datasetUri));
        }
        if (hasLora()) {
            bool(args, "model.apply_lora_to_mlp", loraApplyToMlp);
            bool(args, "model.apply_lora_to_output", loraApplyToOutput);
            if (loraRank != null) {
                args.add("model.lora_rank=" + loraRank);
            }
            if (loraAlpha != null) {
                args.add("model.lora_alpha=" + loraAlpha);
            }
            if (loraDropout != null) {
                args.add("model.lora_dropout=" + pythonFloat(loraDropout));
            }
            bool(args, "model.quantize_base", quantizeBase);
            bool(args, "model.use_dora", useDora);
            List<String> modules = loraAttnModules != null ? loraAttnModules : DEFAULT_LORA_ATTN_MODULES;
            args.add("model.lora_attn_modules=[" + String.join(",", modules) + "]");
        }
        if (hasDataset()) {
            args.add("dataset=" + INSTRUCT_DATASET);
            if (datasetSource != null) {
                args.add("dataset.source=" + datasetSource);
            }
            if (datasetSplit != null) {
                args.add("dataset.split=" + datasetSplit);
            }
            bool(args, "dataset.train_on_input", trainOnInput);
            if (newSystemPrompt != null) {
                args.add("dataset.new_system_prompt=" + newSystemPrompt);
            }
            if (columnMap != null) {
                List<String> entries = new ArrayList<>();
                columnMap.forEach((key, column) -> entries.add("'" + key + "': '" + column + "'"));
                args.add("dataset.column_map={" + String.join(", ", entries) + "}");
            }
        }
        return args;
    }

    /** Python's spelling of a boolean, as the SDK formats it. */
    private static void bool(List<String> args, String name, Boolean value) {
        if (value != null) {
            args.add(name + "=" + (value ? "True" : "False"));
        }
    }

    /**
     * The dataset's place under the initializer's mount: the path after the repository in the URI, a file
     * ({@code data_files}) when its last part has a dot, else a folder ({@code data_dir}); the repository itself is
     * {@code /workspace/dataset/.}, as the SDK joins it.
     */
    private static String huggingFaceDataset(String uri) {
        // as Python's urlparse splits it: the repository up to the first '/', the path up to a query or fragment
        String rest = uri.substring("hf://".length()).split("[?#]", 2)[0];
        String path = rest.contains("/") ? rest.substring(rest.indexOf('/')) : "";
        String[] parts = path.replaceAll("^/+|/+$", "").split("/");
        String relative = parts.length > 1 ? String.join("/", Arrays.copyOfRange(parts, 1, parts.length)) : ".";
        String location = DATASET_PATH + "/" + relative;
        return !relative.equals(".") && relative.contains(".")
                ? "dataset.data_files=" + location
                : "dataset.data_dir=" + location;
    }

    /** A float as Python's repr writes it (shortest digits; exponent form below 1e-4, with two exponent digits). */
    static String pythonFloat(double value) {
        if (value == 0) {
            return "0.0";
        }
        BigDecimal shortest = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        if (Math.abs(value) >= 1e-4) {
            String plain = shortest.toPlainString();
            return plain.contains(".") ? plain : plain + ".0";
        }
        String digits = shortest.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - shortest.scale();
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return (value < 0 ? "-" : "") + mantissa + "e-" + String.format("%02d", -exponent);
    }

    // fluent setters and getters

    public TorchTuneConfig dtype(String v) {
        dtype = v;
        return this;
    }

    public TorchTuneConfig batchSize(Integer v) {
        batchSize = v;
        return this;
    }

    public TorchTuneConfig epochs(Integer v) {
        epochs = v;
        return this;
    }

    public TorchTuneConfig loss(String v) {
        loss = v;
        return this;
    }

    public TorchTuneConfig loraAttnModules(List<String> v) {
        loraAttnModules = v;
        return this;
    }

    public TorchTuneConfig loraRank(Integer v) {
        loraRank = v;
        return this;
    }

    public TorchTuneConfig loraAlpha(Integer v) {
        loraAlpha = v;
        return this;
    }

    public TorchTuneConfig loraDropout(Double v) {
        loraDropout = v;
        return this;
    }

    public TorchTuneConfig loraApplyToMlp(Boolean v) {
        loraApplyToMlp = v;
        return this;
    }

    public TorchTuneConfig loraApplyToOutput(Boolean v) {
        loraApplyToOutput = v;
        return this;
    }

    public TorchTuneConfig quantizeBase(Boolean v) {
        quantizeBase = v;
        return this;
    }

    public TorchTuneConfig useDora(Boolean v) {
        useDora = v;
        return this;
    }

    public TorchTuneConfig datasetSource(String v) {
        datasetSource = v;
        return this;
    }

    public TorchTuneConfig datasetSplit(String v) {
        datasetSplit = v;
        return this;
    }

    public TorchTuneConfig trainOnInput(Boolean v) {
        trainOnInput = v;
        return this;
    }

    public TorchTuneConfig newSystemPrompt(String v) {
        newSystemPrompt = v;
        return this;
    }

    public String datasetSplit() {
        return datasetSplit;
    }

    public String newSystemPrompt() {
        return newSystemPrompt;
    }

    /** Adds one column to the map, keyed by what torchtune reads (input, output). */
    public TorchTuneConfig column(String key, String column) {
        if (columnMap == null) {
            columnMap = new LinkedHashMap<>();
        }
        columnMap.put(key, column);
        return this;
    }
}
