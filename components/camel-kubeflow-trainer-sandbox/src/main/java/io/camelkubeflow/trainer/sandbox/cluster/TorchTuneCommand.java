package io.camelkubeflow.trainer.sandbox.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What the Trainer v2.3 torch plugin makes of a trainer whose command is exactly {@code tune run} (the torchtune
 * builtin trainer): it appends the rendezvous endpoint when more than one process trains, the recipe and config it
 * picks from the nodes, processes, GPUs and the LoRA/QLoRA settings in the args, and the runtime's own paths
 * (output, tokenizer, checkpoints) from the runtime's command; the args stay as given.
 */
final class TorchTuneCommand {
    static final List<String> ENTRYPOINT = List.of("tune", "run");
    private static final Set<String> RUNTIME_CONFIGS =
            Set.of("output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file");

    private TorchTuneCommand() {}

    /**
     * @param processesPerNode the numProcPerNode the plugin settled on: a number, or "auto" with GPUs
     * @param gpus             the GPUs per node of the trainer's resources
     * @param runtimeCommand   the command of the runtime's trainer container, before the TrainJob's
     */
    static List<String> complete(
            String jobName,
            String runtimeName,
            int numNodes,
            String processesPerNode,
            long gpus,
            List<String> args,
            List<String> runtimeCommand) {
        List<String> command = new ArrayList<>(ENTRYPOINT);
        boolean numbered = !"auto".equals(processesPerNode);
        int processes = numbered ? Integer.parseInt(processesPerNode) : 0;
        if (numNodes > 1 || (numbered && processes > 1) || (!numbered && gpus > 1)) {
            command.add("--rdzv_endpoint=" + jobName + "-node-0-0." + jobName + ":29500");
        }
        boolean qlora = !enabled(args, "model.use_dora") && enabled(args, "model.quantize_base");
        boolean lora = args.stream().anyMatch(arg -> arg.contains("model.lora_attn_modules"));
        String recipe = "full_finetune_distributed";
        String suffix = "_full";
        if (numNodes == 1 && ((numbered && processes == 1) || gpus == 1)) {
            recipe = qlora || lora ? "lora_finetune_single_device" : "full_finetune_single_device";
            suffix = qlora ? "_qlora_single_device" : lora ? "_lora_single_device" : "_full_single_device";
        } else if (numNodes == 1 && (qlora || lora)) {
            recipe = "lora_finetune_distributed";
            suffix = qlora ? "_qlora" : "_lora";
        } else if (numNodes > 1) {
            suffix = "_full_multinode";
        }
        command.add(recipe);
        command.add("--config");
        command.add(model(runtimeName) + suffix);
        for (String word : runtimeCommand) {
            if (RUNTIME_CONFIGS.contains(word.split("=", 2)[0])) {
                command.add(word);
            }
        }
        return command;
    }

    /** An arg {@code name=true} (any case, spaces around the value ignored) whose name contains {@code item}. */
    private static boolean enabled(List<String> args, String item) {
        for (String arg : args) {
            int equals = arg.indexOf('=');
            if (equals >= 0
                    && arg.substring(0, equals).contains(item)
                    && arg.substring(equals + 1).trim().equalsIgnoreCase("true")) {
                return true;
            }
        }
        return false;
    }

    /** The model the runtime's name says, as the plugin reads {@code torchtune-llama3.2-1b}: llama3_2/1B. */
    private static String model(String runtimeName) {
        String[] parts = runtimeName.split("-", -1);
        return parts.length == 3 ? parts[1].replace('.', '_') + "/" + parts[2].toUpperCase(Locale.ROOT) : "";
    }
}
