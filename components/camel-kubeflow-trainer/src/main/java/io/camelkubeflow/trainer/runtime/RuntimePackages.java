package io.camelkubeflow.trainer.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a runtime's image holds, as a script run on it prints it (the Kubeflow SDK's get_runtime_packages runs one of
 * its own for the same): the Python version, the installed packages and, where nvidia-smi exists, the GPUs.
 *
 * @param python       the Python version line
 * @param accelerators what nvidia-smi printed on the node, null where there is no nvidia-smi
 */
public record RuntimePackages(String runtime, String python, List<Package> packages, String accelerators) {
    public static final String PYTHON_MARK = "camel-kubeflow-trainer python:";
    public static final String PACKAGES_MARK = "camel-kubeflow-trainer packages:";
    public static final String ACCELERATORS_MARK = "camel-kubeflow-trainer accelerators:";
    /** The script a job runs to print them: a mark before each part, the packages in pip's freeze format. */
    public static final String SCRIPT = String.join(
            "\n",
            "import shutil, subprocess, sys",
            "print('" + PYTHON_MARK + "', sys.version.replace('\\n', ' '), flush=True)",
            "print('" + PACKAGES_MARK + "', flush=True)",
            "listed = subprocess.run([sys.executable, '-m', 'pip', 'list', '--format=freeze'], capture_output=True,"
                    + " text=True)",
            "print(listed.stdout if listed.returncode == 0 else 'pip is not installed', flush=True)",
            "if shutil.which('nvidia-smi'):",
            "    print('" + ACCELERATORS_MARK + "', flush=True)",
            "    print(subprocess.run(['nvidia-smi'], capture_output=True, text=True).stdout, flush=True)",
            "");

    /** A package installed in the runtime's image. */
    public record Package(String name, String version) {}

    /**
     * The parts the script printed, found by their marks; where several ranks printed them (MPI), the packages once
     * each and the first GPU listing.
     */
    public static RuntimePackages parse(String runtime, String log) {
        String python = null;
        Map<String, Package> packages = new LinkedHashMap<>();
        List<String> accelerators = null;
        String part = null;
        for (String line : log == null ? List.<String>of() : log.lines().toList()) {
            if (line.startsWith(PYTHON_MARK)) {
                python = python == null ? line.substring(PYTHON_MARK.length()).trim() : python;
                part = PYTHON_MARK;
            } else if (line.startsWith(PACKAGES_MARK)) {
                part = PACKAGES_MARK;
            } else if (line.startsWith(ACCELERATORS_MARK)) {
                part = accelerators == null ? ACCELERATORS_MARK : null;
                accelerators = accelerators == null ? new ArrayList<>() : accelerators;
            } else if (PACKAGES_MARK.equals(part) && line.contains("==")) {
                String[] nameAndVersion = line.trim().split("==", 2);
                packages.putIfAbsent(nameAndVersion[0], new Package(nameAndVersion[0], nameAndVersion[1]));
            } else if (ACCELERATORS_MARK.equals(part)) {
                accelerators.add(line);
            }
        }
        return new RuntimePackages(
                runtime,
                python,
                List.copyOf(packages.values()),
                accelerators == null ? null : String.join("\n", accelerators).strip());
    }
}
