package io.camelkubeflow.trainer.e2e;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A ConfigMap in the protobuf encoding kubectl writes built-in objects in
 * ({@code application/vnd.kubernetes.protobuf}): the "k8s\0" magic, then a runtime.Unknown holding the TypeMeta and the
 * object's own message.
 */
final class KubernetesProtobuf {
    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private KubernetesProtobuf() {}

    static byte[] configMap(String name, Map<String, String> data) {
        ByteArrayOutputStream configMap = new ByteArrayOutputStream();
        field(configMap, 1, message(out -> field(out, 1, name.getBytes(StandardCharsets.UTF_8))));
        new TreeMap<>(data)
                .forEach((key, value) -> field(configMap, 2, message(out -> {
                    field(out, 1, key.getBytes(StandardCharsets.UTF_8));
                    field(out, 2, value.getBytes(StandardCharsets.UTF_8));
                })));
        ByteArrayOutputStream unknown = new ByteArrayOutputStream();
        unknown.writeBytes(MAGIC);
        field(unknown, 1, message(out -> {
            field(out, 1, "v1".getBytes(StandardCharsets.UTF_8));
            field(out, 2, "ConfigMap".getBytes(StandardCharsets.UTF_8));
        }));
        field(unknown, 2, configMap.toByteArray());
        return unknown.toByteArray();
    }

    private static byte[] message(Consumer<ByteArrayOutputStream> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        fields.accept(out);
        return out.toByteArray();
    }

    /** A length-delimited field (wire type 2): strings, bytes and embedded messages. */
    private static void field(ByteArrayOutputStream out, int number, byte[] bytes) {
        varint(out, (long) number << 3 | 2);
        varint(out, bytes.length);
        out.writeBytes(bytes);
    }

    private static void varint(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) (value & 0x7F | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }
}
