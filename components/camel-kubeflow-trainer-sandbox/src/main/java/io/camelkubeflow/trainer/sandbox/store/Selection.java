package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The label and field selectors of a list or watch request, read as a kube-apiserver reads them: label requirements
 * {@code k=v}, {@code k==v}, {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k},
 * {@code k>n}, {@code k<n}; field requirements {@code f=v}, {@code f==v}, {@code f!=v} on the fields the resource
 * supports (metadata.name and metadata.namespace everywhere, a few more on pods and events). A selector it cannot
 * parse, or a field the resource does not support, is a 400, as on a cluster.
 */
public final class Selection {
    private static final Pattern LABEL_SET = Pattern.compile("\\s*(\\S+?)\\s+(in|notin)\\s*\\(([^)]*)\\)\\s*");
    private static final Pattern LABEL_COMPARE = Pattern.compile("\\s*([^!=<>\\s]+)\\s*(==|!=|=|<|>)\\s*([^\\s]*)\\s*");
    private static final Pattern LABEL_EXISTS = Pattern.compile("\\s*(!?)\\s*([^!=<>\\s(),]+)\\s*");
    private static final Pattern LABEL_KEY = Pattern.compile(
            "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Set<String> POD_FIELDS = Set.of(
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName");
    private static final Set<String> EVENT_FIELDS = Set.of(
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type");

    private final List<Predicate<Map<String, Object>>> requirements;
    private final String remainingPath;

    private Selection(List<Predicate<Map<String, Object>>> requirements, String remainingPath) {
        this.requirements = requirements;
        this.remainingPath = remainingPath;
    }

    /**
     * The selectors of a request path on {@code plural}, or null when it has none.
     *
     * @throws IllegalArgumentException naming the requirement a cluster would refuse
     */
    public static Selection of(String path, String plural) {
        int question = path.indexOf('?');
        if (question < 0) {
            return null;
        }
        List<Predicate<Map<String, Object>>> requirements = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        for (String pair : path.substring(question + 1).split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            if (name.equals("labelSelector")) {
                requirements.addAll(labels(value));
            } else if (name.equals("fieldSelector")) {
                requirements.addAll(fields(value, plural));
            } else {
                kept.add(pair);
            }
        }
        if (requirements.isEmpty()
                && kept.size() == path.substring(question + 1).split("&").length) {
            return null;
        }
        return new Selection(
                requirements, path.substring(0, question) + (kept.isEmpty() ? "" : "?" + String.join("&", kept)));
    }

    /** The request path without its selectors, for the store, which then answers with every candidate. */
    public String remainingPath() {
        return remainingPath;
    }

    boolean matches(Map<String, Object> object) {
        return requirements.stream().allMatch(r -> r.test(object));
    }

    /** A list answer of the store with only the items this selection matches. */
    @SuppressWarnings("unchecked")
    public String selectItems(String listJson) {
        Map<String, Object> list = Serialization.unmarshal(listJson, Map.class);
        Object items = list.get("items");
        if (items instanceof List<?> all) {
            list.put(
                    "items",
                    all.stream()
                            .filter(i -> i instanceof Map && matches((Map<String, Object>) i))
                            .toList());
        }
        return Serialization.asJson(list);
    }

    /**
     * The store's watch of every candidate, seen through this selection: an object is ADDED when it starts matching,
     * MODIFIED while it matches, DELETED when it stops matching or goes; other objects' events are not sent.
     */
    public WebSocketListener selectEvents(WebSocketListener store) {
        return new SelectedWatch(store);
    }

    private final class SelectedWatch extends WebSocketListener {
        private final WebSocketListener store;
        private final Set<String> matching = ConcurrentHashMap.newKeySet();
        private volatile SelectedSocket socket;

        SelectedWatch(WebSocketListener store) {
            this.store = store;
        }

        private WebSocket socket(WebSocket client) {
            if (socket == null || socket.client != client) {
                socket = new SelectedSocket(client);
            }
            return socket;
        }

        @Override
        public void onBeforeAccept(WebSocket client, Response response) {
            store.onBeforeAccept(socket(client), response);
        }

        @Override
        public void onOpen(WebSocket client, Response response) {
            store.onOpen(socket(client), response);
        }

        @Override
        public void onMessage(WebSocket client, String text) {
            store.onMessage(socket(client), text);
        }

        @Override
        public void onClosing(WebSocket client, int code, String reason) {
            store.onClosing(socket(client), code, reason);
        }

        @Override
        public void onClosed(WebSocket client, int code, String reason) {
            store.onClosed(socket(client), code, reason);
        }

        @Override
        public void onFailure(WebSocket client, Throwable error, Response response) {
            store.onFailure(socket(client), error, response);
        }

        private final class SelectedSocket implements WebSocket {
            final WebSocket client;

            SelectedSocket(WebSocket client) {
                this.client = client;
            }

            @Override
            public RecordedRequest request() {
                return client.request();
            }

            @Override
            @SuppressWarnings("unchecked")
            public boolean send(String text) {
                Map<String, Object> event = Serialization.unmarshal(text, Map.class);
                if (!(event.get("object") instanceof Map<?, ?> object)
                        || "ERROR".equals(event.get("type"))
                        || "BOOKMARK".equals(event.get("type"))) {
                    return client.send(text);
                }
                Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
                String key = metadata == null ? "" : metadata.get("namespace") + "/" + metadata.get("name");
                boolean matches = !"DELETED".equals(event.get("type")) && matches((Map<String, Object>) object);
                boolean matched = matches ? !matching.add(key) : matching.remove(key);
                if (!matches && !matched) {
                    return true;
                }
                event.put("type", matches ? (matched ? "MODIFIED" : "ADDED") : "DELETED");
                return client.send(Serialization.asJson(event));
            }

            @Override
            public boolean send(byte[] bytes) {
                return send(new String(bytes, StandardCharsets.UTF_8));
            }

            @Override
            public boolean close(int code, String reason) {
                return client.close(code, reason);
            }
        }
    }

    private static List<Predicate<Map<String, Object>>> labels(String selector) {
        List<Predicate<Map<String, Object>>> requirements = new ArrayList<>();
        for (String requirement : splitOutsideParentheses(selector)) {
            if (requirement.isBlank()) {
                if (selector.isBlank()) {
                    continue;
                }
                throw new IllegalArgumentException("unable to parse requirement: found '', expected: identifier");
            }
            Matcher set = LABEL_SET.matcher(requirement);
            Matcher compare = LABEL_COMPARE.matcher(requirement);
            Matcher exists = LABEL_EXISTS.matcher(requirement);
            if (set.matches()) {
                String key = key(set.group(1));
                List<String> values = new ArrayList<>();
                for (String value : set.group(3).split(",")) {
                    values.add(value(value.trim()));
                }
                boolean in = set.group(2).equals("in");
                requirements.add(o -> {
                    String actual = labels(o).get(key);
                    return in ? actual != null && values.contains(actual) : actual == null || !values.contains(actual);
                });
            } else if (compare.matches()) {
                String key = key(compare.group(1));
                String operator = compare.group(2);
                String value = value(compare.group(3));
                if (operator.equals("<") || operator.equals(">")) {
                    long bound = integer(value);
                    requirements.add(o -> {
                        String actual = labels(o).get(key);
                        if (actual == null || !actual.matches("-?\\d+")) {
                            return false;
                        }
                        return operator.equals("<") ? Long.parseLong(actual) < bound : Long.parseLong(actual) > bound;
                    });
                } else {
                    boolean equal = !operator.equals("!=");
                    requirements.add(o -> value.equals(labels(o).get(key)) == equal);
                }
            } else if (exists.matches()) {
                String key = key(exists.group(2));
                boolean present = exists.group(1).isEmpty();
                requirements.add(o -> labels(o).containsKey(key) == present);
            } else {
                throw new IllegalArgumentException("unable to parse requirement: " + requirement.trim());
            }
        }
        return requirements;
    }

    private static List<Predicate<Map<String, Object>>> fields(String selector, String plural) {
        List<Predicate<Map<String, Object>>> requirements = new ArrayList<>();
        for (String requirement : selector.split(",")) {
            if (requirement.isBlank()) {
                continue;
            }
            Matcher compare = LABEL_COMPARE.matcher(requirement);
            if (!compare.matches()
                    || compare.group(2).equals("<")
                    || compare.group(2).equals(">")) {
                throw new IllegalArgumentException(
                        "invalid selector: '" + selector + "'; can't understand '" + requirement + "'");
            }
            String field = compare.group(1);
            boolean supported = field.equals("metadata.name")
                    || field.equals("metadata.namespace")
                    || plural.equals("pods") && POD_FIELDS.contains(field)
                    || plural.equals("events") && EVENT_FIELDS.contains(field);
            if (!supported) {
                throw new IllegalArgumentException("field label not supported: " + field);
            }
            String value = compare.group(3);
            boolean equal = !compare.group(2).equals("!=");
            requirements.add(o -> value.equals(field(o, field)) == equal);
        }
        return requirements;
    }

    /** Splits at commas that are not inside a parenthesised value set. */
    private static List<String> splitOutsideParentheses(String selector) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < selector.length(); i++) {
            char c = selector.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(selector.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(selector.substring(start));
        return parts;
    }

    private static String key(String key) {
        if (!LABEL_KEY.matcher(key).matches() || key.length() > 316) {
            throw new IllegalArgumentException("unable to parse requirement: invalid label key \"" + key
                    + "\": name part must consist of alphanumeric characters, '-', '_' or '.'");
        }
        return key;
    }

    private static String value(String value) {
        if (!LABEL_VALUE.matcher(value).matches() || value.length() > 63) {
            throw new IllegalArgumentException(
                    "unable to parse requirement: invalid label value: \"" + value
                            + "\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'");
        }
        return value;
    }

    private static long integer(String value) {
        if (!value.matches("-?\\d+")) {
            throw new IllegalArgumentException(
                    "unable to parse requirement: for 'Gt', 'Lt' operators, the value must" + " be an integer");
        }
        return Long.parseLong(value);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> labels(Map<String, Object> object) {
        Object metadata = object.get("metadata");
        Object labels = metadata instanceof Map ? ((Map<String, Object>) metadata).get("labels") : null;
        return labels instanceof Map ? (Map<String, String>) labels : Map.of();
    }

    @SuppressWarnings("unchecked")
    private static String field(Map<String, Object> object, String path) {
        Object value = object;
        for (String part : path.split("\\.")) {
            value = value instanceof Map ? ((Map<String, Object>) value).get(part) : null;
        }
        return value == null ? "" : String.valueOf(value);
    }
}
