package io.camelkubeflow.trainer.sandbox.store;

/**
 * What an API path names, read as the API server reads it: {@code /api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]]} or
 * {@code /apis/GROUP/VERSION[/namespaces/NS]/PLURAL[/NAME[/SUB]]}; the query is left out. A part the path does not
 * have is null.
 */
public record ResourcePath(String groupVersion, String namespace, String plural, String name, String subresource) {

    /**
     * Whether the path names an object's status subresource: the segment after its name, never a "/status" in the
     * query or in a name.
     */
    public static boolean isStatus(String path) {
        ResourcePath resource = of(path);
        return resource != null && "status".equals(resource.subresource());
    }

    /** The parts of an API path; null for a path outside /api/v1 and /apis/GROUP/VERSION. */
    public static ResourcePath of(String path) {
        int question = path.indexOf('?');
        String[] parts = (question < 0 ? path : path.substring(0, question)).split("/");
        boolean core = parts.length > 2 && parts[1].equals("api");
        if (!core && !(parts.length > 3 && parts[1].equals("apis"))) {
            return null;
        }
        String groupVersion = core ? parts[2] : parts[2] + "/" + parts[3];
        int at = core ? 3 : 4;
        String namespace = null;
        if (parts.length > at + 2 && parts[at].equals("namespaces")) {
            namespace = parts[at + 1];
            at += 2;
        }
        return new ResourcePath(groupVersion, namespace, part(parts, at), part(parts, at + 1), part(parts, at + 2));
    }

    private static String part(String[] parts, int at) {
        return parts.length > at && !parts[at].isEmpty() ? parts[at] : null;
    }
}
