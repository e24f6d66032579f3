package io.camelkubeflow.trainer.sandbox.http;

import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server-side tables kubectl asks for ({@code Accept: application/json;as=Table;g=meta.k8s.io;v=v1}): a custom
 * resource's columns are its CRD's additionalPrinterColumns (after the name); pods, events and namespaces get the
 * columns a kube-apiserver prints for them; other kinds get NAME and AGE.
 */
final class Tables {
    private static final Pattern FILTER = Pattern.compile("\\[\\?\\(@\\.([A-Za-z0-9_]+)==\"([^\"]*)\"\\)\\]");

    private Tables() {}

    /** Whether a request asks for a table. */
    static boolean wanted(String accept) {
        return accept != null && accept.contains("as=Table");
    }

    /**
     * The table of a list or single object answer of kind {@code kind}; {@code crds} give custom resources' columns.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> of(
            Map<String, Object> answer, String kind, List<CustomResourceDefinition> crds, Instant now) {
        List<Map<String, Object>> objects = answer.containsKey("items")
                ? (List<Map<String, Object>>) (List<?>) list(answer.get("items"))
                : List.of(answer);
        List<Map<String, Object>> columns = new ArrayList<>();
        columns.add(column("Name", "string", "name"));
        List<CustomResourceColumnDefinition> printer = printerColumns(kind, crds);
        boolean pod = "Pod".equals(kind);
        boolean event = "Event".equals(kind);
        boolean namespace = "Namespace".equals(kind);
        if (event) {
            columns.set(0, column("Last Seen", "string", ""));
            columns.add(column("Type", "string", ""));
            columns.add(column("Reason", "string", ""));
            columns.add(column("Object", "string", ""));
            columns.add(column("Message", "string", ""));
        } else if (namespace) {
            columns.add(column("Status", "string", ""));
            columns.add(column("Age", "string", ""));
        } else if (pod) {
            columns.add(column("Ready", "string", ""));
            columns.add(column("Status", "string", ""));
            columns.add(column("Restarts", "string", ""));
            columns.add(column("Age", "string", ""));
        } else if (printer != null) {
            printer.forEach(c -> columns.add(column(c.getName(), c.getType(), c.getDescription())));
        } else {
            columns.add(column("Age", "string", ""));
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map<String, Object> object : objects) {
            Map<String, Object> metadata = map(object.get("metadata"));
            List<Object> cells = new ArrayList<>();
            cells.add(event ? age((String) object.get("lastTimestamp"), now) : metadata.get("name"));
            if (event) {
                Map<String, Object> involved = map(object.get("involvedObject"));
                cells.addAll(List.of(
                        String.valueOf(object.get("type")),
                        String.valueOf(object.get("reason")),
                        String.valueOf(involved.get("kind")).toLowerCase(Locale.ROOT) + "/" + involved.get("name"),
                        String.valueOf(object.get("message"))));
            } else if (namespace) {
                cells.add(String.valueOf(map(object.get("status")).getOrDefault("phase", "Active")));
                cells.add(age((String) metadata.get("creationTimestamp"), now));
            } else if (pod) {
                cells.addAll(podCells(object, now));
            } else if (printer != null) {
                for (CustomResourceColumnDefinition c : printer) {
                    Object value = evaluate(object, c.getJsonPath());
                    cells.add(
                            "date".equals(c.getType()) && value instanceof String time
                                    ? age(time, now)
                                    : value == null ? "" : value);
                }
            } else {
                cells.add(age((String) metadata.get("creationTimestamp"), now));
            }
            rows.add(Map.of(
                    "cells",
                    cells,
                    "object",
                    Map.of("kind", "PartialObjectMetadata", "apiVersion", "meta.k8s.io/v1", "metadata", metadata)));
        }
        Map<String, Object> table = new LinkedHashMap<>();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/v1");
        table.put("metadata", map(answer.get("metadata")));
        table.put("columnDefinitions", columns);
        table.put("rows", rows);
        return table;
    }

    private static List<CustomResourceColumnDefinition> printerColumns(
            String kind, List<CustomResourceDefinition> crds) {
        for (CustomResourceDefinition crd : crds) {
            if (crd.getSpec().getNames().getKind().equals(kind)) {
                for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
                    if (Boolean.TRUE.equals(version.getStorage())) {
                        return version.getAdditionalPrinterColumns() == null
                                        || version.getAdditionalPrinterColumns().isEmpty()
                                ? List.of(age())
                                : version.getAdditionalPrinterColumns();
                    }
                }
            }
        }
        return null;
    }

    private static CustomResourceColumnDefinition age() {
        CustomResourceColumnDefinition age = new CustomResourceColumnDefinition();
        age.setName("Age");
        age.setType("date");
        age.setJsonPath(".metadata.creationTimestamp");
        return age;
    }

    /** READY, STATUS, RESTARTS, AGE as kubectl shows a pod. */
    private static List<Object> podCells(Map<String, Object> pod, Instant now) {
        Map<String, Object> status = map(pod.get("status"));
        List<?> containers = list(map(pod.get("spec")).get("containers"));
        List<?> statuses = list(status.get("containerStatuses"));
        long ready = statuses.stream()
                .filter(s -> Boolean.TRUE.equals(map(s).get("ready")))
                .count();
        long restarts = statuses.stream()
                .mapToLong(s -> map(s).get("restartCount") instanceof Number n ? n.longValue() : 0)
                .sum();
        String reason = String.valueOf(status.getOrDefault("phase", "Unknown"));
        for (Object s : statuses) {
            Map<String, Object> state = map(map(s).get("state"));
            if (map(state.get("terminated")).get("reason") instanceof String terminated) {
                reason = terminated;
            } else if (map(state.get("waiting")).get("reason") instanceof String waiting) {
                reason = waiting;
            }
        }
        return List.of(
                ready + "/" + containers.size(),
                reason,
                Long.toString(restarts),
                age((String) map(pod.get("metadata")).get("creationTimestamp"), now));
    }

    /** A JSONPath of the forms CRDs use: {@code .a.b}, {@code .a[-1:].b}, {@code .a[0].b}, {@code .a[?(@.k=="v")].b}. */
    static Object evaluate(Map<String, Object> object, String path) {
        Object current = object;
        for (String step : path.substring(1).split("\\.(?![^\\[]*\\])")) {
            int bracket = step.indexOf('[');
            String field = bracket < 0 ? step : step.substring(0, bracket);
            current = map(current).get(field);
            if (bracket >= 0) {
                List<?> items = list(current);
                String index = step.substring(bracket);
                Matcher filter = FILTER.matcher(index);
                if (filter.matches()) {
                    current = items.stream()
                            .filter(i -> filter.group(2).equals(String.valueOf(map(i).get(filter.group(1)))))
                            .findFirst()
                            .orElse(null);
                } else if (index.equals("[-1:]") || index.equals("[-1]")) {
                    current = items.isEmpty() ? null : items.get(items.size() - 1);
                } else if (index.matches("\\[\\d+\\]")) {
                    int i = Integer.parseInt(index.substring(1, index.length() - 1));
                    current = i < items.size() ? items.get(i) : null;
                } else {
                    return null;
                }
            }
            if (current == null) {
                return null;
            }
        }
        return current;
    }

    /** How old a timestamp is, as the API server prints a date column: 42s, 5m10s, 3h, 4d... */
    static String age(String timestamp, Instant now) {
        if (timestamp == null) {
            return "<unknown>";
        }
        Duration age = Duration.between(OffsetDateTime.parse(timestamp).toInstant(), now);
        long seconds = Math.max(0, age.getSeconds());
        if (seconds < 120) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            return seconds % 60 == 0 ? minutes + "m" : minutes + "m" + seconds % 60 + "s";
        }
        if (minutes < 180) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            return minutes % 60 == 0 ? hours + "h" : hours + "h" + minutes % 60 + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        return hours / 24 + "d";
    }

    private static Map<String, Object> column(String name, String type, String description) {
        return Map.of(
                "name",
                name,
                "type",
                type,
                "format",
                name.equals("Name") ? "name" : "",
                "description",
                description == null ? "" : description,
                "priority",
                0);
    }
}
