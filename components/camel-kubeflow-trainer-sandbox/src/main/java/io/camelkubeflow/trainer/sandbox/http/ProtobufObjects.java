package io.camelkubeflow.trainer.sandbox.http;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the protobuf encoding ({@code application/vnd.kubernetes.protobuf}) kubectl writes built-in objects in —
 * {@code kubectl create namespace}, {@code create configmap}, {@code create secret} — into the JSON the store keeps.
 * The encoding is the "k8s\0" magic and a runtime.Unknown (its TypeMeta, then the object's own message); each kind's
 * fields are numbered as in k8s.io/api's generated.proto. Only the kinds below are read, with the fields a client
 * sets; any other kind is refused as an API server refuses a media type it does not read.
 */
final class ProtobufObjects {
    static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private ProtobufObjects() {}

    /** A body that is not a protobuf object of a kind read here. */
    static final class Unreadable extends Exception {
        Unreadable(String message) {
            super(message);
        }
    }

    /** Whether a request's Content-Type is the protobuf encoding. */
    static boolean isProtobuf(String contentType) {
        return contentType != null && contentType.trim().startsWith(MEDIA_TYPE);
    }

    /** The JSON of a protobuf-encoded Namespace, ConfigMap or Secret. */
    static String toJson(byte[] body) throws Unreadable {
        if (body.length < MAGIC.length || !Arrays.equals(body, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new Unreadable("the body does not start with the protobuf magic \"k8s\\0\"");
        }
        Message unknown = new Message(body, MAGIC.length, body.length);
        Message typeMeta = unknown.message(1);
        String apiVersion = typeMeta.string(1);
        String kind = typeMeta.string(2);
        Message object = unknown.message(2);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("apiVersion", apiVersion);
        json.put("kind", kind);
        json.put("metadata", objectMeta(object.message(1)));
        switch (apiVersion + " " + kind) {
            case "v1 Namespace" -> {
                List<String> finalizers = object.message(2).strings(1);
                if (!finalizers.isEmpty()) {
                    json.put("spec", Map.of("finalizers", finalizers));
                }
            }
            case "v1 ConfigMap" -> {
                putIfAny(json, "data", object.stringMap(2));
                putIfAny(json, "binaryData", object.base64Map(3));
                object.bool(4).ifPresent(immutable -> json.put("immutable", immutable));
            }
            case "v1 Secret" -> {
                putIfAny(json, "data", object.base64Map(2));
                String type = object.string(3);
                if (type != null) {
                    json.put("type", type);
                }
                putIfAny(json, "stringData", object.stringMap(4));
                object.bool(5).ifPresent(immutable -> json.put("immutable", immutable));
            }
            default -> throw new Unreadable("the sandbox reads " + apiVersion + " " + kind + " as JSON only");
        }
        return Serialization.asJson(json);
    }

    /**
     * ObjectMeta's fields a client writes: name 1, generateName 2, namespace 3, labels 11, annotations 12, finalizers
     * 14.
     */
    private static Map<String, Object> objectMeta(Message meta) throws Unreadable {
        Map<String, Object> json = new LinkedHashMap<>();
        for (var field : List.of(Map.entry(1, "name"), Map.entry(2, "generateName"), Map.entry(3, "namespace"))) {
            String value = meta.string(field.getKey());
            if (value != null) {
                json.put(field.getValue(), value);
            }
        }
        putIfAny(json, "labels", meta.stringMap(11));
        putIfAny(json, "annotations", meta.stringMap(12));
        List<String> finalizers = meta.strings(14);
        if (!finalizers.isEmpty()) {
            json.put("finalizers", finalizers);
        }
        return json;
    }

    private static void putIfAny(Map<String, Object> json, String key, Map<String, ?> values) {
        if (!values.isEmpty()) {
            json.put(key, values);
        }
    }

    /** A protobuf message's bytes: its fields read by number (proto3 wire format: varint, 64-bit, bytes, 32-bit). */
    private static final class Message {
        private final byte[] bytes;
        private final int start;
        private final int end;

        Message(byte[] bytes, int start, int end) {
            this.bytes = bytes;
            this.start = start;
            this.end = end;
        }

        /** A field as the wire holds it: a varint's value, or a length-delimited field's bytes (else null). */
        private record Field(int number, long varint, byte[] bytes) {}

        /** Every field, in order. */
        private List<Field> fields() throws Unreadable {
            List<Field> fields = new ArrayList<>();
            int at = start;
            while (at < end) {
                long[] key = varint(at);
                at = (int) key[1];
                int number = (int) (key[0] >>> 3);
                switch ((int) (key[0] & 7)) {
                    case 0 -> {
                        long[] value = varint(at);
                        fields.add(new Field(number, value[0], null));
                        at = (int) value[1];
                    }
                    case 1 -> at += 8;
                    case 5 -> at += 4;
                    case 2 -> {
                        long[] length = varint(at);
                        int from = (int) length[1];
                        if (length[0] < 0 || length[0] > end - from) {
                            throw new Unreadable("a field runs past the end of its message");
                        }
                        at = from + (int) length[0];
                        fields.add(new Field(number, 0, Arrays.copyOfRange(bytes, from, at)));
                    }
                    default -> throw new Unreadable("unknown wire type " + (key[0] & 7));
                }
            }
            return fields;
        }

        /** The length-delimited values of field {@code number}, in order: a repeated field's items. */
        List<byte[]> all(int number) throws Unreadable {
            List<byte[]> values = new ArrayList<>();
            for (Field field : fields()) {
                if (field.number() == number && field.bytes() != null) {
                    values.add(field.bytes());
                }
            }
            return values;
        }

        /** The last value of a non-repeated field, as proto3 reads it; null when absent. */
        private byte[] last(int number) throws Unreadable {
            List<byte[]> values = all(number);
            return values.isEmpty() ? null : values.get(values.size() - 1);
        }

        Message message(int number) throws Unreadable {
            byte[] value = last(number);
            return value == null ? new Message(new byte[0], 0, 0) : new Message(value, 0, value.length);
        }

        /** A string field; null when absent or empty, which proto3 does not tell apart (Go writes "" as it is). */
        String string(int number) throws Unreadable {
            byte[] value = last(number);
            return value == null || value.length == 0 ? null : new String(value, StandardCharsets.UTF_8);
        }

        List<String> strings(int number) throws Unreadable {
            List<String> values = new ArrayList<>();
            for (byte[] value : all(number)) {
                values.add(new String(value, StandardCharsets.UTF_8));
            }
            return values;
        }

        /** A map field: repeated entries of key (1) and value (2). */
        private Map<String, byte[]> entries(int number) throws Unreadable {
            Map<String, byte[]> map = new LinkedHashMap<>();
            for (byte[] entry : all(number)) {
                Message pair = new Message(entry, 0, entry.length);
                byte[] value = pair.last(2);
                map.put(pair.string(1) == null ? "" : pair.string(1), value == null ? new byte[0] : value);
            }
            return map;
        }

        Map<String, String> stringMap(int number) throws Unreadable {
            Map<String, String> map = new LinkedHashMap<>();
            entries(number).forEach((key, value) -> map.put(key, new String(value, StandardCharsets.UTF_8)));
            return map;
        }

        /** A map of bytes, as JSON holds bytes: base64. */
        Map<String, String> base64Map(int number) throws Unreadable {
            Map<String, String> map = new LinkedHashMap<>();
            entries(number)
                    .forEach((key, value) -> map.put(key, Base64.getEncoder().encodeToString(value)));
            return map;
        }

        /** A bool field (a varint); empty when absent. */
        Optional<Boolean> bool(int number) throws Unreadable {
            Boolean found = null;
            for (Field field : fields()) {
                if (field.number() == number && field.bytes() == null) {
                    found = field.varint() != 0;
                }
            }
            return Optional.ofNullable(found);
        }

        /** A varint at {@code at}: its value and where the next byte is. */
        private long[] varint(int at) throws Unreadable {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= end) {
                    throw new Unreadable("a varint runs past the end of its message");
                }
                byte b = bytes[at++];
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return new long[] {value, at};
                }
            }
            throw new Unreadable("a varint longer than 10 bytes");
        }
    }
}
