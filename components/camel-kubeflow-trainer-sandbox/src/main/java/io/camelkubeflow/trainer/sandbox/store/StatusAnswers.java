package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusCauseBuilder;
import io.fabric8.kubernetes.api.model.StatusDetailsBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The {@code Status} bodies a kube-apiserver refuses a request with, worded as it words them: an object is named by
 * its resource ("trainjobs.trainer.kubeflow.org", "configmaps") and name, which the details repeat with the group, so
 * that clients matching the message or reading the details (kubectl, client-go's errors package) find what they find on
 * a cluster.
 */
public final class StatusAnswers {
    private StatusAnswers() {}

    /** A refusal without details. */
    public static MockResponse failure(int code, String reason, String message) {
        return answer(new StatusBuilder()
                .withStatus("Failure")
                .withCode(code)
                .withReason(reason)
                .withMessage(message)
                .withNewMetadata()
                .endMetadata());
    }

    /**
     * 422 for an object its schema or CEL rules refuse, as kube-apiserver answers it: "Kind.group "name" is invalid:
     * [field: problem, ...]", with a cause per violation, each with the field it is about and the reason of the field
     * error kube-apiserver would give (its cause messages are the sandbox validator's own words, not the API server's).
     *
     * @param violations as the validator gives them, each "path: problem" (a path as ".spec.trainer", "<root>")
     */
    static MockResponse invalid(String group, String kind, String name, List<String> violations) {
        List<StatusCause> causes = violations.stream().map(StatusAnswers::cause).toList();
        String listed =
                causes.stream().map(c -> c.getField() + ": " + c.getMessage()).collect(Collectors.joining(", "));
        return answer(new StatusBuilder()
                .withStatus("Failure")
                .withCode(422)
                .withReason("Invalid")
                .withMessage(kind + "." + group + " \"" + name + "\" is invalid: [" + listed + "]")
                .withNewMetadata()
                .endMetadata()
                .withDetails(new StatusDetailsBuilder()
                        .withName(name)
                        .withGroup(group)
                        .withKind(kind)
                        .withCauses(causes)
                        .build()));
    }

    /** A violation "path: problem" as the field error kube-apiserver gives for it. */
    private static StatusCause cause(String violation) {
        int colon = violation.indexOf(": ");
        String path = colon < 0 ? "" : violation.substring(0, colon);
        String problem = colon < 0 ? violation : violation.substring(colon + 2);
        String field = path.equals("<root>") ? "<nil>" : path.startsWith(".") ? path.substring(1) : path;
        Matcher missing = MISSING.matcher(problem);
        String reason;
        if (missing.matches()) {
            // the API server names the missing field itself
            field = (field.isEmpty() ? "" : field + ".") + missing.group(1);
            reason = "FieldValueRequired";
        } else if (problem.startsWith("must be ") || problem.startsWith("null is not allowed")) {
            reason = "FieldValueTypeInvalid";
        } else if (problem.contains(" items, at most ")) {
            reason = "FieldValueTooMany";
        } else if (problem.startsWith("Duplicate value")) {
            reason = "FieldValueDuplicate";
        } else if (problem.contains(" is not one of ")) {
            reason = "FieldValueNotSupported";
        } else if (problem.startsWith("longer than ") || problem.startsWith("Too long")) {
            reason = "FieldValueTooLong";
        } else {
            reason = "FieldValueInvalid";
        }
        return new StatusCauseBuilder()
                .withField(field)
                .withReason(reason)
                .withMessage(problem)
                .build();
    }

    private static final Pattern MISSING = Pattern.compile("missing required field '(.*)'");

    /** 404 for an object that does not exist. */
    public static MockResponse notFound(ResourcePath resource, String name) {
        return about(404, "NotFound", resource, name, qualified(resource) + " \"" + name + "\" not found");
    }

    /** 409 for a create whose name is taken. */
    static MockResponse alreadyExists(ResourcePath resource, String name) {
        return about(409, "AlreadyExists", resource, name, qualified(resource) + " \"" + name + "\" already exists");
    }

    /** 409 for a write based on a resourceVersion that is no longer the object's. */
    static MockResponse conflict(ResourcePath resource, String name) {
        return about(
                409,
                "Conflict",
                resource,
                name,
                "Operation cannot be fulfilled on " + qualified(resource) + " \""
                        + name
                        + "\": the object has been modified; please apply your changes to the latest version and try"
                        + " again");
    }

    /**
     * 200 for an object deleted at once, of a kind whose registry answers a delete with a Status, not the object (all
     * but pods, namespaces, services and service accounts): its name, group, resource and uid, so a client can tell it
     * is gone rather than waiting for finalizers.
     */
    static MockResponse deleted(ResourcePath resource, String name, String uid) {
        return answer(
                new StatusBuilder()
                        .withStatus("Success")
                        .withNewMetadata()
                        .endMetadata()
                        .withDetails(new StatusDetailsBuilder()
                                .withName(name)
                                .withGroup(group(resource))
                                .withKind(resource.plural())
                                .withUid(uid)
                                .build()),
                200);
    }

    private static MockResponse about(int code, String reason, ResourcePath resource, String name, String message) {
        return answer(new StatusBuilder()
                .withStatus("Failure")
                .withCode(code)
                .withReason(reason)
                .withMessage(message)
                .withNewMetadata()
                .endMetadata()
                .withDetails(new StatusDetailsBuilder()
                        .withName(name)
                        .withGroup(group(resource))
                        .withKind(resource.plural())
                        .build()));
    }

    private static MockResponse answer(StatusBuilder status) {
        return answer(status, status.getCode());
    }

    private static MockResponse answer(StatusBuilder status, int code) {
        return new MockResponse()
                .setResponseCode(code)
                .setHeader("Content-Type", "application/json")
                .setBody(Serialization.asJson(status.build()));
    }

    /** The group of a path's resource; null for the core group, whose details name none. */
    private static String group(ResourcePath resource) {
        int slash = resource.groupVersion().indexOf('/');
        return slash < 0 ? null : resource.groupVersion().substring(0, slash);
    }

    /** The resource as the API server's messages name it: plural, then ".group" unless it is the core group. */
    static String qualified(ResourcePath resource) {
        String group = group(resource);
        return group == null ? resource.plural() : resource.plural() + "." + group;
    }
}
