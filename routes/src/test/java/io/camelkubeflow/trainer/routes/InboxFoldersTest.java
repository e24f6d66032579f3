package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project folder the inbox route is running is not found again by the next tick of its timer: the route waits for
 * the TrainJob to end, and a second exchange of the same folder would adopt the job, then fail to move the folder
 * the first one moved (an ERROR line in a green build, before).
 */
class InboxFoldersTest {
    @TempDir
    Path inbox;

    @Test
    void aFolderInProgressIsNotFoundAgainUntilItsExchangeCompletes() throws Exception {
        InboxFolders folders = new InboxFolders();
        folders.inbox = inbox;
        Path project = Files.createDirectory(inbox.resolve("my-project"));
        Files.createDirectory(inbox.resolve(".done"));
        assertEquals(List.of(project), folders.ready());

        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            Exchange exchange = new DefaultExchange(camel);
            exchange.getMessage().setBody(project);
            folders.describe(exchange);
            assertEquals(List.of(), folders.ready(), "in progress");

            for (Synchronization completion : exchange.getExchangeExtension().handoverCompletions()) {
                completion.onFailure(exchange);
            }
            assertEquals(List.of(project), folders.ready(), "left in place after a failure: found again");
        }
    }
}
