package io.camelkubeflow.trainer.routes;

import io.fabric8.kubernetes.client.utils.Serialization;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

/** Renders a TrainJob as the YAML kubectl would show, for the outbox. */
@ApplicationScoped
@Named("trainJobYaml")
public class TrainJobYaml {
    public String render(Object trainJob) {
        return Serialization.asYaml(trainJob);
    }
}
