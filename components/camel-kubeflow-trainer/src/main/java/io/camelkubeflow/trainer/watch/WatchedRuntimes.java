package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.job.RuntimeLookup;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runtimes read from the shared informers instead of a GET per create (what the Kubeflow SDK does): the first lookup
 * of a kind (and namespace) lists and watches them, later ones read the cache. A runtime the cache does not hold (just
 * created, or the watch is behind) is looked up directly, so a missing runtime is still reported exactly; without the
 * rights to list and watch runtimes every lookup is direct.
 */
public final class WatchedRuntimes implements RuntimeLookup {
    private static final Logger LOG = LoggerFactory.getLogger(WatchedRuntimes.class);

    private final ClusterInformers informers;
    private final RuntimeLookup direct;
    private volatile boolean watchRefused;

    public WatchedRuntimes(ClusterInformers informers, RuntimeLookup direct) {
        this.informers = informers;
        this.direct = direct;
    }

    @Override
    public GenericKubernetesResource find(RuntimeKind kind, String namespace, String name) {
        if (!watchRefused) {
            try {
                SharedIndexInformer<GenericKubernetesResource> informer = informers.runtimes(kind, namespace);
                GenericKubernetesResource cached = informer.getStore()
                        .getByKey(Cache.namespaceKeyFunc(kind.namespaced() ? namespace : null, name));
                if (cached != null) {
                    return cached;
                }
            } catch (KubernetesClientException e) {
                watchRefused = true;
                LOG.warn(
                        "Cannot list and watch {} ({}): each create reads its runtime with a GET instead",
                        kind.context().getPlural(),
                        e.getMessage());
            }
        }
        return direct.find(kind, namespace, name);
    }
}
