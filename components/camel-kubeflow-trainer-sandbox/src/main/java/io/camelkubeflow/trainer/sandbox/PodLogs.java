package io.camelkubeflow.trainer.sandbox;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The sandbox's pod logs: lines appended by the emulated controller, served on the API server's log endpoint with
 * its parameters (container, timestamps, sinceTime, sinceSeconds, tailLines, limitBytes, previous: the log of the
 * container attempt before the last restart). A follow request
 * gets the log as it is and then ends, as a broken stream would: clients resume with sinceTime.
 */
public final class PodLogs {
    static final Pattern LOG_PATH = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)/log(\\?.*)?");

    private record Line(Instant time, String text) {
    }

    /** Per pod, the log of each container attempt; the last is the running one. */
    private final Map<String, List<List<Line>>> logs = new ConcurrentHashMap<>();

    /** Starts a pod's (empty) log: from now on the log endpoint answers for the pod. */
    public void create(String namespace, String pod) {
        logs.putIfAbsent(namespace + "/" + pod, new ArrayList<>(List.of(new ArrayList<>())));
    }

    /** Appends a line to the log of a pod's running container, stamped now. */
    public void append(String namespace, String pod, String text) {
        List<List<Line>> attempts = logs.computeIfAbsent(namespace + "/" + pod,
                k -> new ArrayList<>(List.of(new ArrayList<>())));
        synchronized (attempts) {
            attempts.get(attempts.size() - 1).add(new Line(Instant.now(), text));
        }
    }

    /** The pod's container restarted: its log so far becomes the previous one ({@code previous=true}). */
    public void restart(String namespace, String pod) {
        List<List<Line>> attempts = logs.get(namespace + "/" + pod);
        synchronized (attempts) {
            attempts.add(new ArrayList<>());
        }
    }

    /** The response to a log request, or null when the path is not a log path. */
    MockResponse answer(String path) {
        Matcher matcher = LOG_PATH.matcher(path);
        if (!matcher.matches()) {
            return null;
        }
        List<List<Line>> attempts = logs.get(matcher.group(1) + "/" + matcher.group(2));
        if (attempts == null) {
            return new MockResponse().setResponseCode(404).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"status\":\"Failure\",\"reason\":\"NotFound\",\"code\":404,\"message\":\"pods \\\""
                    + matcher.group(2) + "\\\" not found\"}");
        }
        Map<String, String> query = query(matcher.group(3));
        boolean previous = "true".equals(query.get("previous"));
        List<Line> selected;
        synchronized (attempts) {
            if (previous && attempts.size() < 2) {
                return new MockResponse().setResponseCode(400).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        + "\"status\":\"Failure\",\"reason\":\"BadRequest\",\"code\":400,\"message\":"
                        + "\"previous terminated container not found\"}");
            }
            selected = new ArrayList<>(attempts.get(attempts.size() - (previous ? 2 : 1)));
        }
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
        boolean timestamps = "true".equals(query.get("timestamps"));
        StringBuilder body = new StringBuilder();
        for (Line line : selected) {
            if (timestamps) {
                body.append(line.time()).append(' ');
            }
            body.append(line.text()).append('\n');
        }
        String text = body.toString();
        if (query.containsKey("limitBytes")) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            int limit = Integer.parseInt(query.get("limitBytes"));
            if (bytes.length > limit) {
                text = new String(bytes, 0, limit, StandardCharsets.UTF_8);
            }
        }
        return new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain").setBody(text);
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
