package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.WebSocket;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * The faults of the store's watches a test plans (a dropped connection, an expired resourceVersion), reaching the
 * watch sockets fabric8's store keeps to itself.
 */
public final class WatchFaults {
    private final KubernetesCrudDispatcher store;
    private final Map<String, Integer> goneWatches = new ConcurrentHashMap<>();

    WatchFaults(KubernetesCrudDispatcher store) {
        this.store = store;
    }

    /** Closes every open watch connection; how many were closed. */
    public int dropWatches() {
        return forEachWatchSocket(socket -> socket.close(1011, "trainer sandbox dropped the watch"));
    }

    /** Sends every open watch the ERROR event of an expired resourceVersion (410 Gone); how many were told. */
    public int expireWatches() {
        String gone = Serialization.asJson(Map.of(
                "type",
                "ERROR",
                "object",
                new StatusBuilder()
                        .withStatus("Failure")
                        .withCode(410)
                        .withReason("Expired")
                        .withMessage("too old resource version (sandbox fault injection)")
                        .build()));
        return forEachWatchSocket(socket -> socket.send(gone));
    }

    /** Plans {@code 410 Gone} for the next {@code count} watch requests whose path contains {@code pathPart}. */
    public void answerNextWatchesWithGone(String pathPart, int count) {
        goneWatches.merge(pathPart, count, Integer::sum);
    }

    @SuppressWarnings("unchecked")
    private int forEachWatchSocket(Predicate<WebSocket> action) {
        int count = 0;
        for (Object listener : watchListeners()) {
            try {
                Field socketField = listener.getClass().getDeclaredField("webSocketRef");
                socketField.setAccessible(true);
                WebSocket socket = ((AtomicReference<WebSocket>) socketField.get(listener)).get();
                if (socket != null && action.test(socket)) {
                    count++;
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("this fabric8 mock server version hides its watch sockets", e);
            }
        }
        return count;
    }

    /** Uses up one 410 answer planned for a path part this watch path contains; false when none is planned. */
    boolean takeGoneAnswer(String path) {
        for (String part : goneWatches.keySet()) {
            if (path.contains(part)) {
                boolean[] taken = {false};
                goneWatches.computeIfPresent(part, (k, n) -> {
                    taken[0] = true;
                    return n > 1 ? n - 1 : null;
                });
                if (taken[0]) {
                    return true;
                }
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private Set<Object> watchListeners() {
        try {
            Field field = KubernetesCrudDispatcher.class.getDeclaredField("watchEventListeners");
            field.setAccessible(true);
            return Set.copyOf((Set<Object>) field.get(store));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this fabric8 mock server version hides its watch listeners", e);
        }
    }
}
