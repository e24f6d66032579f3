package io.camelkubeflow.trainer.sandbox.store;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.CustomResourceDefinitionProcessor;
import io.fabric8.kubernetes.client.utils.KubernetesVersionPriority;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * What a stored CustomResourceDefinition serves: its group, names, scope and versions, without their schemas. Read
 * from the CRD's JSON with every schema skipped unread: the typed model binds a Trainer CRD's 360 KB of schema to
 * thousands of objects (11 MB for the four installed CRDs, and ~150 ms of a cold JVM building its deserializers) for
 * the few facts the store and discovery need.
 */
public record ServedCrd(Metadata metadata, Spec spec) {
    /** Every field not named here (a version's schema above all) is skipped unread. */
    private static final ObjectMapper MAPPER =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private static final ObjectReader READER = MAPPER.readerFor(ServedCrd.class);
    private static final ObjectReader LIST_READER = MAPPER.readerFor(CrdList.class);

    private record CrdList(List<ServedCrd> items) {}

    record Metadata(String name) {}

    record Spec(String group, String scope, Names names, List<Version> versions) {}

    record Names(String plural, String singular, String kind, List<String> shortNames, List<String> categories) {}

    record Version(String name, boolean served, Map<String, Object> subresources) {
        boolean hasStatus() {
            return subresources != null && subresources.containsKey("status");
        }
    }

    public static ServedCrd of(String json) {
        try {
            return READER.readValue(json);
        } catch (IOException e) {
            throw new UncheckedIOException("not a CustomResourceDefinition: " + e.getMessage(), e);
        }
    }

    /** The CRDs of a CustomResourceDefinitionList's JSON; none for null. */
    static List<ServedCrd> listOf(String listJson) {
        if (listJson == null) {
            return List.of();
        }
        try {
            List<ServedCrd> items = LIST_READER.<CrdList>readValue(listJson).items();
            return items == null ? List.of() : items;
        } catch (IOException e) {
            throw new UncheckedIOException("not a CustomResourceDefinitionList: " + e.getMessage(), e);
        }
    }

    boolean namespaced() {
        return "Namespaced".equals(spec.scope());
    }

    /**
     * What fabric8's store knows of a CRD's resource, as its {@code CustomResourceDefinitionContext.fromCrd} makes it:
     * the version of the highest priority, and whether that version has a status subresource.
     */
    public CustomResourceDefinitionContext context() {
        String version = KubernetesVersionPriority.highestPriority(
                spec.versions().stream().map(Version::name).toList());
        return new CustomResourceDefinitionContext.Builder()
                .withGroup(spec.group())
                .withVersion(version)
                .withScope(spec.scope())
                .withName(metadata.name())
                .withPlural(spec.names().plural())
                .withKind(spec.names().kind())
                .withStatusSubresource(
                        spec.versions().stream().anyMatch(v -> v.name().equals(version) && v.hasStatus()))
                .build();
    }

    /**
     * fabric8's store's record of the CRDs written to it, learnt from each one's served facts instead of its typed
     * model; a v1beta1 CRD (no longer served by Kubernetes) is left to fabric8.
     */
    static final class Processor extends CustomResourceDefinitionProcessor {
        @Override
        public void process(String path, String crdString, boolean delete) {
            if (!path.startsWith(Discovery.CRDS)) {
                super.process(path, crdString, delete);
                return;
            }
            CustomResourceDefinitionContext context = of(crdString).context();
            if (delete) {
                removeCrdContext(context);
            } else {
                addCrdContext(context);
            }
        }
    }
}
