package io.camelkubeflow.trainer.quarkus.deployment;

import io.quarkus.builder.BuildChainBuilder;
import io.quarkus.deployment.builditem.DevServicesResultBuildItem;
import io.quarkus.deployment.builditem.GeneratedResourceBuildItem;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/** The features whose Dev Services the build produced, written by a build step of the test as a resource. */
final class DevServicesSeen {
    static final String RESOURCE = "dev-services-seen.txt";
    static final Consumer<BuildChainBuilder> CUSTOMIZER = chain -> chain.addBuildStep(context -> {
                String seen = String.join(
                        ",",
                        context.consumeMulti(DevServicesResultBuildItem.class).stream()
                                .map(DevServicesResultBuildItem::getName)
                                .toList());
                context.produce(new GeneratedResourceBuildItem(RESOURCE, seen.getBytes(StandardCharsets.UTF_8)));
            })
            .consumes(DevServicesResultBuildItem.class)
            .produces(GeneratedResourceBuildItem.class)
            .build();

    static List<String> features() throws Exception {
        try (var in = Thread.currentThread().getContextClassLoader().getResourceAsStream(RESOURCE)) {
            String seen = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return seen.isEmpty() ? List.of() : List.of(seen.split(","));
        }
    }
}
