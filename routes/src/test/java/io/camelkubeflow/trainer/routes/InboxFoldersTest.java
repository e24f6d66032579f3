package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project folder the inbox route is running is held by its exchange: the route waits for the TrainJob to end, and a
 * second exchange of the same folder (a later tick, or a tick that found it before another took it) would adopt the
 * job, then fail to move the folder the first one moved (an ERROR line in a green build, before).
 */
class InboxFoldersTest {
    @TempDir
    Path inbox;

    @Test
    void aFolderHeldByAnExchangeIsNotFoundOrClaimedAgainUntilThatExchangeCompletes() throws Exception {
        InboxFolders folders = new InboxFolders();
        folders.inbox = inbox;
        Path project = Files.createDirectory(inbox.resolve("my-project"));
        Files.createDirectory(inbox.resolve(".done"));
        assertEquals(List.of(project), folders.ready());

        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            Exchange first = folderExchange(camel, project);
            // a tick found the folder; a later tick found it too, before the first came to it
            Exchange stale = folderExchange(camel, project);
            assertTrue(folders.claim(first));
            assertEquals(List.of(), folders.ready(), "held: the next tick does not find it");
            assertFalse(folders.claim(stale), "held by another exchange");
            // the stale exchange never held it, so its end lets nothing go
            complete(stale);
            assertEquals(List.of(), folders.ready(), "still held by the first");

            complete(first);
            assertEquals(List.of(project), folders.ready(), "left in place after a failure: found again");
            assertTrue(folders.claim(folderExchange(camel, project)));
        }
    }

    /**
     * As the inbox route runs them: each part of a split over the folders a tick found holds its folder while it runs
     * and lets it go when it ends (its own unit of work), not when the whole split does.
     */
    @Test
    void aSplitPartHoldsItsFolderWhileItRunsAndLetsItGoWhenItEnds() throws Exception {
        InboxFolders folders = new InboxFolders();
        folders.inbox = inbox;
        Path first = Files.createDirectory(inbox.resolve("first"));
        Files.setLastModifiedTime(first, FileTime.fromMillis(1_000_000));
        Path second = Files.createDirectory(inbox.resolve("second"));
        Files.setLastModifiedTime(second, FileTime.fromMillis(2_000_000));
        List<List<Path>> foundWhileRunning = new ArrayList<>();
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:tick")
                            .split(body())
                            .filter(method(folders, "claim"))
                            .process(exchange -> foundWhileRunning.add(folders.ready()));
                }
            });
            camel.start();
            camel.createProducerTemplate().sendBody("direct:tick", folders.ready());
        }
        assertEquals(List.of(List.of(second), List.of(first)), foundWhileRunning);
        assertEquals(List.of(first, second), folders.ready(), "both let go");
    }

    @Test
    void aFolderGoneBeforeItsTurnIsNotClaimed() throws Exception {
        InboxFolders folders = new InboxFolders();
        folders.inbox = inbox;
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            // a tick found it; another exchange ran it and moved it to .done/ before this one came to it
            assertFalse(folders.claim(folderExchange(camel, inbox.resolve("moved-away"))));
        }
    }

    private static Exchange folderExchange(DefaultCamelContext camel, Path folder) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getMessage().setBody(folder);
        return exchange;
    }

    /** Ends the exchange as its unit of work would, failed: its completions run (none if it held nothing). */
    private static void complete(Exchange exchange) {
        List<Synchronization> completions = exchange.getExchangeExtension().handoverCompletions();
        if (completions != null) {
            completions.forEach(completion -> completion.onFailure(exchange));
        }
    }
}
