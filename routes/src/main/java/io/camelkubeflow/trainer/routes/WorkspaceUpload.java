package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceArchives;
import io.camelkubeflow.trainer.workspace.WorkspaceLimits;
import io.fabric8.kubernetes.client.utils.Serialization;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.camel.Exchange;

/**
 * An uploaded project archive (or a project folder) as a train request: the archive (zip, tar or tar.gz) or folder is
 * read and checked as a workspace, and its manifest, {@value #MANIFEST} at its root, says how to run it with the fields
 * of a train request message ({@code pythonFile} or {@code command}, {@code args}, {@code runtime}, {@code numNodes},
 * resources, ...), each refused or accepted exactly as in an HTTP or Kafka request, and bound by the same request
 * policy. Without a manifest, a {@code train.py} at the root is the entry point. The body becomes the
 * {@link Workspace} the train operation runs in ({@code bodyType=workspace}).
 */
@ApplicationScoped
@Named("workspaceUpload")
public class WorkspaceUpload {
    static final String MANIFEST = "kubeflow-trainer.yaml";
    private static final String DEFAULT_ENTRY_POINT = "train.py";

    @Inject
    TrainRequestMessage requestMessage;

    public void apply(Exchange exchange) {
        Workspace workspace;
        if (exchange.getMessage().getBody() instanceof Path folder && Files.isDirectory(folder)) {
            workspace = WorkspaceArchives.fromDirectory(folder, "workspace", WorkspaceLimits.DEFAULT);
        } else {
            byte[] archive = exchange.getMessage().getBody(byte[].class);
            if (archive == null || archive.length == 0) {
                throw new InvalidOptionException("workspace", "the uploaded archive is empty");
            }
            workspace = WorkspaceArchives.fromArchive(archive, "workspace", WorkspaceLimits.DEFAULT);
        }
        byte[] manifest = WorkspaceArchives.read(workspace, MANIFEST);
        Map<?, ?> fields;
        if (manifest != null) {
            // a byte that is not UTF-8 refused where it is, as in a request message; a key twice refused by the parser
            String yaml = TrainRequestMessage.utf8(manifest, MANIFEST);
            Object parsed;
            try {
                parsed = Serialization.unmarshal(yaml, Object.class);
            } catch (RuntimeException e) {
                throw new InvalidOptionException(MANIFEST, "is not YAML: " + e.getMessage());
            }
            if (!(parsed instanceof Map<?, ?> map)) {
                throw new InvalidOptionException(
                        MANIFEST, "must be a mapping of train request fields, such as" + " 'pythonFile: train.py'");
            }
            fields = map;
        } else if (workspace.contains(DEFAULT_ENTRY_POINT)) {
            fields = Map.of("pythonFile", DEFAULT_ENTRY_POINT);
        } else {
            throw new InvalidOptionException(
                    "workspace",
                    "the archive has neither " + MANIFEST + " nor "
                            + DEFAULT_ENTRY_POINT + " at its root, so nothing says what to run; add a " + MANIFEST
                            + " with"
                            + " pythonFile (or command) and the settings of the run");
        }
        exchange.getMessage().setBody(fields);
        requestMessage.apply(exchange);
        exchange.getMessage().setBody(workspace);
    }
}
