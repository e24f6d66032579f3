package io.camelkubeflow.trainer.routes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Project folders moved into the inbox (the inbox route runs each as a workspace): found, described with the headers
 * a dropped file has, and moved to {@code .done/} or {@code .failed/} as the route decides, as files are. An exchange
 * claims its folder ({@link #claim}) and holds it until it completes, as Camel's file consumer keeps a file it is
 * reading: the route waits for the TrainJob to end, and the timer fires again long before, finding the folders not
 * held; a folder one tick found may be held by a later tick's exchange, or gone, when this tick comes to it.
 */
@ApplicationScoped
@Named("inboxFolders")
public class InboxFolders {
    private static final String FOLDER = "inboxProjectFolder";

    /** The folders an exchange is running, by absolute path. */
    private final Set<Path> inProgress = ConcurrentHashMap.newKeySet();

    @ConfigProperty(name = "trainer.inbox")
    Path inbox;

    /** The folders in the inbox, oldest first; {@code .done}, {@code .failed} and other dot folders are not. */
    public List<Path> ready() throws IOException {
        if (!Files.isDirectory(inbox)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(inbox)) {
            return entries.filter(Files::isDirectory)
                    .filter(dir -> !dir.getFileName().toString().startsWith("."))
                    .filter(dir -> !inProgress.contains(dir.toAbsolutePath()))
                    .sorted(Comparator.comparing(InboxFolders::modified))
                    .toList();
        }
    }

    /**
     * Whether this exchange may run the folder (its body): it is still there and no other exchange holds it. The
     * exchange then holds it until it completes, moved or left in place; only the holder lets it go.
     */
    public boolean claim(Exchange exchange) {
        Path folder = exchange.getMessage().getBody(Path.class).toAbsolutePath();
        if (!Files.isDirectory(folder) || !inProgress.add(folder)) {
            return false;
        }
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                inProgress.remove(folder);
            }
        });
        return true;
    }

    /** The folder's name and, for its idempotency key, its path and modification time; the body stays the folder. */
    public void describe(Exchange exchange) {
        Path folder = exchange.getMessage().getBody(Path.class).toAbsolutePath();
        exchange.setProperty(FOLDER, folder);
        exchange.getMessage().setHeader(Exchange.FILE_NAME, folder.getFileName().toString());
        exchange.getMessage().setHeader("CamelFileAbsolutePath", folder.toString());
        exchange.getMessage().setHeader(Exchange.FILE_LAST_MODIFIED, modified(folder));
    }

    /** Moves the folder into the inbox's {@code .done/} or {@code .failed/}, as the route set. */
    public void move(Exchange exchange) throws IOException {
        Path folder = exchange.getProperty(FOLDER, Path.class);
        Path target = inbox.resolve(exchange.getProperty("inboxFolder", ".done", String.class))
                .resolve(folder.getFileName());
        Files.createDirectories(target.getParent());
        if (Files.exists(target)) {
            // the same name done before: this one keeps its time beside it
            target = target.resolveSibling(target.getFileName() + "-" + modified(folder));
        }
        Files.move(folder, target, StandardCopyOption.ATOMIC_MOVE);
    }

    private static long modified(Path path) {
        try {
            return Files.getLastModifiedTime(path).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
