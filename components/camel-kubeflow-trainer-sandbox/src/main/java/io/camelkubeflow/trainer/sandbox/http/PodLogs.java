package io.camelkubeflow.trainer.sandbox.http;

import io.camelkubeflow.trainer.sandbox.store.ResourcePath;
import io.camelkubeflow.trainer.sandbox.store.StatusAnswers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.vertx.core.buffer.Buffer;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sandbox's pod logs: lines appended by the emulated controller, served on the API server's log endpoint with
 * its parameters (container, timestamps, sinceTime, sinceSeconds, tailLines, limitBytes, previous: the log of the
 * container attempt before the last restart). A follow request ({@code follow=true}) streams the running container's
 * lines as they are appended and ends when that container ends (it exits, or crashes and is restarted), as a kubelet's
 * log stream does.
 */
public final class PodLogs {
    static final Pattern LOG_PATH = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)/log(\\?.*)?");

    /**
     * A line as a container runtime's log file holds it: when it was written, and that time as the kubelet writes it
     * before the line when asked for timestamps (RFC 3339 with nanoseconds, always nine digits), formatted once.
     */
    private record Line(Instant time, String stamp, String text) {
        Line(Instant time, String text) {
            this(time, KUBELET_TIME.format(time), text);
        }
    }

    /** The kubelet's timestamp format (Go's RFC3339NanoFixed), in UTC. */
    private static final DateTimeFormatter KUBELET_TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX").withZone(ZoneOffset.UTC);

    /** A follower of a container's log: the stream it writes to, whether it writes timestamps, how many it wrote. */
    private final class Follower {
        final ChunkedStream stream;
        final boolean timestamps;
        int written;

        Follower(ChunkedStream stream, boolean timestamps) {
            this.stream = stream;
            this.timestamps = timestamps;
        }

        /** Writes a line; false once the stream has ended (the client left, or the cut fault ended it). */
        boolean write(Line line) {
            return write(List.of(line));
        }

        /**
         * Writes lines in chunks of about {@link #CHUNK_BYTES} (the log so far, when the follow starts); false once the
         * stream has ended (the client left, or the cut fault ended it).
         */
        boolean write(List<Line> lines) {
            int cut = cutFollowsAfter;
            int count = cut > 0 ? Math.min(lines.size(), cut - written) : lines.size();
            Iterator<Buffer> chunks = chunks(lines.subList(0, count), timestamps, Long.MAX_VALUE);
            while (chunks.hasNext()) {
                if (!stream.write(chunks.next())) {
                    return false;
                }
            }
            written += count;
            if (cut > 0 && written >= cut) {
                stream.end();
                return false;
            }
            return true;
        }

        ChunkedStream stream() {
            return stream;
        }
    }

    /** A fault: follow streams end after this many lines (0: never), as broken connections would. */
    private volatile int cutFollowsAfter;

    /**
     * From now on, every log follow stream ends after {@code lines} lines (0: never), as a stream broken by the
     * network or a proxy would: clients must resume it.
     */
    public void cutFollowsAfter(int lines) {
        cutFollowsAfter = lines;
    }

    /** A fault: the next log answer that does not follow breaks after this many lines (0: none does). */
    private final AtomicInteger breakNextAnswerAfter = new AtomicInteger();

    /**
     * The next log answer that is not a follow stream (a plain read, or the log of a container that ended) sends
     * {@code lines} lines and then its connection breaks, as a network or proxy failure would: clients must read it
     * again. Once.
     */
    public void breakNextAnswerAfter(int lines) {
        breakNextAnswerAfter.set(lines);
    }

    /** One container attempt's log; ended once the container exited; its followers while it runs. */
    private static final class Attempt {
        final List<Line> lines = new ArrayList<>();
        final List<Follower> followers = new ArrayList<>();
        boolean ended;

        void end() {
            ended = true;
            followers.forEach(f -> f.stream().end());
            followers.clear();
        }
    }

    /** Per pod, the log of each container attempt; the last is the running one. Each list is its own lock. */
    private final Map<String, List<Attempt>> logs = new ConcurrentHashMap<>();

    /** Pods scheduled whose containers have not started, by "namespace/pod": the container a log request names. */
    private final Map<String, String> waiting = new ConcurrentHashMap<>();

    /** Starts a pod's (empty) log: from now on the log endpoint answers for the pod. */
    public void create(String namespace, String pod) {
        logs.putIfAbsent(namespace + "/" + pod, new ArrayList<>(List.of(new Attempt())));
    }

    /**
     * A pod scheduled on a node whose {@code container} has not started: until {@link #started}, the log endpoint
     * refuses with the kubelet's 400 "is waiting to start", which clients (kubectl logs, the component's log
     * follower) must tell apart from an empty log.
     */
    public void waitingToStart(String namespace, String pod, String container) {
        create(namespace, pod);
        waiting.put(namespace + "/" + pod, container);
    }

    /** The pod's container started (or ended without starting): its log is served. */
    public void started(String namespace, String pod) {
        waiting.remove(namespace + "/" + pod);
    }

    /** The kubelet's refusal of the log of a container that has not started; null once it has. */
    private MockResponse waitingRefusal(String namespace, String pod, Map<String, String> query) {
        String container = waiting.get(namespace + "/" + pod);
        return container == null
                ? null
                : StatusAnswers.failure(
                        400,
                        "BadRequest",
                        "container \""
                                + query.getOrDefault("container", container) + "\" in pod \"" + pod
                                + "\" is waiting to start: ContainerCreating");
    }

    /** Appends a line to the log of a pod's running container, stamped now, and writes it to its followers. */
    public void append(String namespace, String pod, String text) {
        appendBurst(namespace, pod, List.of(text));
    }

    /**
     * Appends lines that the container wrote at once: a runtime stamps them with one time (to the nanosecond), so a
     * reader resuming after one of them cannot tell them apart by time.
     */
    public void appendBurst(String namespace, String pod, List<String> texts) {
        List<Attempt> attempts =
                logs.computeIfAbsent(namespace + "/" + pod, k -> new ArrayList<>(List.of(new Attempt())));
        synchronized (attempts) {
            Attempt running = attempts.get(attempts.size() - 1);
            Instant now = Instant.now();
            for (String text : texts) {
                Line line = new Line(now, text);
                running.lines.add(line);
                running.followers.removeIf(f -> !f.write(line));
            }
        }
    }

    /**
     * The pod's container restarted: its log so far becomes the previous one ({@code previous=true}) and its
     * followers' streams end.
     */
    public void restart(String namespace, String pod) {
        List<Attempt> attempts = logs.get(namespace + "/" + pod);
        synchronized (attempts) {
            attempts.get(attempts.size() - 1).end();
            attempts.add(new Attempt());
        }
    }

    /** The pod's container exited (or the pod is gone): streams following its log end. */
    public void end(String namespace, String pod) {
        List<Attempt> attempts = logs.get(namespace + "/" + pod);
        if (attempts != null) {
            synchronized (attempts) {
                attempts.get(attempts.size() - 1).end();
            }
        }
    }

    /** Whether a request path asks to follow a pod's log. */
    static boolean isFollow(String path) {
        Matcher matcher = LOG_PATH.matcher(path);
        return matcher.matches() && "true".equals(query(matcher.group(3)).get("follow"));
    }

    /**
     * Follows a pod's log: writes the lines so far to {@code stream}, then each new one, and ends it when the
     * container ends. Returns null when it streams, else the complete answer (a pod without a log, a previous
     * container's log, a container that already ended).
     */
    MockResponse follow(String path, ChunkedStream stream) {
        Matcher matcher = LOG_PATH.matcher(path);
        List<Attempt> attempts = matcher.matches() ? logs.get(matcher.group(1) + "/" + matcher.group(2)) : null;
        Map<String, String> query = matcher.matches() ? query(matcher.group(3)) : Map.of();
        if (attempts == null
                || "true".equals(query.get("previous"))
                || waitingRefusal(matcher.group(1), matcher.group(2), query) != null) {
            return answer(path, stream);
        }
        synchronized (attempts) {
            Attempt running = attempts.get(attempts.size() - 1);
            if (running.ended) {
                return answer(path, stream);
            }
            Follower follower = new Follower(stream, "true".equals(query.get("timestamps")));
            stream.write(Buffer.buffer());
            if (!follower.write(select(running.lines, query))) {
                return null;
            }
            running.followers.add(follower);
            stream.onClose(() -> {
                synchronized (attempts) {
                    running.followers.remove(follower);
                }
            });
        }
        return null;
    }

    /** Whether a request path names a pod's log. */
    static boolean isLog(String path) {
        return LOG_PATH.matcher(path).matches();
    }

    /**
     * Answers a request for a pod's log that does not follow it: streams the selected lines to {@code stream} as the
     * client reads them, as a kubelet copies the log file, and returns null; or returns the refusal (no such pod, no
     * previous container) to send instead.
     */
    MockResponse answer(String path, ChunkedStream stream) {
        Matcher matcher = LOG_PATH.matcher(path);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not a log path: " + path);
        }
        List<Attempt> attempts = logs.get(matcher.group(1) + "/" + matcher.group(2));
        if (attempts == null) {
            return StatusAnswers.notFound(ResourcePath.of(path), matcher.group(2));
        }
        Map<String, String> query = query(matcher.group(3));
        MockResponse waitingToStart = waitingRefusal(matcher.group(1), matcher.group(2), query);
        if (waitingToStart != null) {
            return waitingToStart;
        }
        boolean previous = "true".equals(query.get("previous"));
        List<Line> selected;
        synchronized (attempts) {
            if (previous && attempts.size() < 2) {
                return StatusAnswers.failure(400, "BadRequest", "previous terminated container not found");
            }
            selected = select(attempts.get(attempts.size() - (previous ? 2 : 1)).lines, query);
        }
        long limit = query.containsKey("limitBytes") ? Long.parseLong(query.get("limitBytes")) : Long.MAX_VALUE;
        int breakAfter = breakNextAnswerAfter.getAndSet(0);
        boolean breaks = breakAfter > 0 && breakAfter < selected.size();
        stream.send(
                chunks(
                        breaks ? selected.subList(0, breakAfter) : selected,
                        "true".equals(query.get("timestamps")),
                        limit),
                breaks);
        return null;
    }

    /** How many bytes of log a chunk of an answer holds, about: a kubelet copies a log file in 32 KiB reads. */
    private static final int CHUNK_BYTES = 32 * 1024;

    /**
     * Lines as the bytes a log answer sends, made a chunk at a time as the stream asks for them, ending after
     * {@code limitBytes} bytes (limitBytes cuts a line, even a character, where the byte count ends).
     */
    private static Iterator<Buffer> chunks(List<Line> lines, boolean timestamps, long limitBytes) {
        return new Iterator<>() {
            private int next;
            private long sent;

            @Override
            public boolean hasNext() {
                return next < lines.size() && sent < limitBytes;
            }

            @Override
            public Buffer next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                // a follower writes each new line alone
                Buffer chunk = Buffer.buffer(
                        next == lines.size() - 1 ? lines.get(next).text().length() + 40 : CHUNK_BYTES + 256);
                while (next < lines.size() && chunk.length() < CHUNK_BYTES) {
                    Line line = lines.get(next++);
                    if (timestamps) {
                        chunk.appendString(line.stamp()).appendByte((byte) ' ');
                    }
                    chunk.appendString(line.text()).appendByte((byte) '\n');
                }
                if (sent + chunk.length() > limitBytes) {
                    chunk = chunk.getBuffer(0, (int) (limitBytes - sent));
                }
                sent += chunk.length();
                return chunk;
            }
        };
    }

    /** The lines of a log that sinceTime, sinceSeconds and tailLines select. */
    private static List<Line> select(List<Line> lines, Map<String, String> query) {
        List<Line> selected = new ArrayList<>(lines);
        if (query.containsKey("sinceTime")) {
            // the API server reads sinceTime with second precision
            Instant since = OffsetDateTime.parse(query.get("sinceTime")).toInstant();
            selected.removeIf(line -> line.time().getEpochSecond() < since.getEpochSecond());
        } else if (query.containsKey("sinceSeconds")) {
            Instant since = Instant.now().minusSeconds(Long.parseLong(query.get("sinceSeconds")));
            selected.removeIf(line -> line.time().isBefore(since));
        }
        if (query.containsKey("tailLines")) {
            int tail = Integer.parseInt(query.get("tailLines"));
            selected = selected.subList(Math.max(0, selected.size() - tail), selected.size());
        }
        return selected;
    }

    private static Map<String, String> query(String part) {
        Map<String, String> query = new HashMap<>();
        if (part == null || part.length() < 2) {
            return query;
        }
        for (String pair : part.substring(1).split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            query.put(key, value);
        }
        return query;
    }
}
