package io.camelkubeflow.trainer.api;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A Kubeflow Trainer v2 TrainJob ({@code trainer.kubeflow.org/v1alpha1}), typed after the v2.3.0 CRD.
 */
@Group(TrainJob.GROUP)
@Version(TrainJob.VERSION)
@Kind("TrainJob")
@Plural("trainjobs")
public class TrainJob extends CustomResource<TrainJobSpec, TrainJobStatus> implements Namespaced {
    public static final String GROUP = "trainer.kubeflow.org";
    public static final String VERSION = "v1alpha1";
    public static final String API_VERSION = GROUP + "/" + VERSION;

    /** The namespace, the same string in every TrainJob of it ({@link SharedStrings}). */
    @Override
    public void setMetadata(ObjectMeta metadata) {
        if (metadata != null) {
            metadata.setNamespace(SharedStrings.of(metadata.getNamespace()));
        }
        super.setMetadata(metadata);
    }
}
