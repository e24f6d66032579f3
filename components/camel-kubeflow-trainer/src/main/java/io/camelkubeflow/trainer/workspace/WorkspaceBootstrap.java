package io.camelkubeflow.trainer.workspace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The words put before a program so that it runs inside its workspace: {@code python3 -c <bootstrap.py>} with the
 * staged archive's path, its digest, where to unpack it and how to install its {@code requirements.txt}, then
 * {@code --} and the program. The bootstrap (standard library only, so any trainer image runs it) verifies the
 * digest, unpacks once per node under a lock, installs the requirements, changes to the workspace and execs the
 * program. The Trainer lets a runtime patch add no init container (a patch may only touch containers the runtime
 * has), so the trainer command itself carries this step: under mpirun every rank runs it on its own node.
 */
public final class WorkspaceBootstrap {
    /** Where the archive's ConfigMap is mounted in every container that may run user code. */
    public static final String ARCHIVE_DIR = "/opt/camel-kubeflow-trainer/archive";
    /** The emptyDir the workspace is unpacked into; the program runs in {@code <WORKSPACE_DIR>/<short digest>}. */
    public static final String WORKSPACE_DIR = "/opt/camel-kubeflow-trainer/workspace";
    /** The bootstrap's source, as the pods run it. */
    public static final String SOURCE = load();

    private WorkspaceBootstrap() {}

    /**
     * @param inStore   whether the archive is in a {@link WorkspaceStore} (its place a {@link #storedArchive} word,
     *                  replaced by the URL once the job's fingerprint is taken) rather than the mounted ConfigMap
     * @param userSite  whether requirements go to the user site (the launcher runs code as a non-root user)
     * @param indexUrls the package indexes of the request (the first replaces PyPI)
     */
    public static List<String> command(Workspace workspace, boolean inStore, boolean userSite, List<String> indexUrls) {
        List<String> words = new ArrayList<>(List.of(
                "python3",
                "-c",
                SOURCE,
                inStore ? storedArchive(workspace) : ARCHIVE_DIR + "/" + WorkspaceStaging.ARCHIVE_KEY,
                workspace.digest(),
                WORKSPACE_DIR,
                userSite ? "1" : "0"));
        words.addAll(indexUrls);
        words.add("--");
        return words;
    }

    /**
     * The word that stands for a stored archive's URL until the job's request fingerprint is taken: the URL differs at
     * each create (it is signed then), the request does not.
     */
    public static String storedArchive(Workspace workspace) {
        return "workspace-store:sha256:" + workspace.digest();
    }

    private static String load() {
        try (InputStream in = WorkspaceBootstrap.class.getResourceAsStream("bootstrap.py")) {
            if (in == null) {
                throw new IllegalStateException("bootstrap.py is missing from the component's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
