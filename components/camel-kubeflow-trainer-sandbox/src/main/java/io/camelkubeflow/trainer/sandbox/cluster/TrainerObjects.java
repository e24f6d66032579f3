package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the Trainer's controller writes for a TrainJob beside its JobSet (as Trainer v2.3.0 writes them), each owned by
 * the TrainJob as its controller: the snapshot of the runtime it renders from and, for an MPI runtime, the SSH key
 * pair its nodes trust and the hostfile mpirun reads.
 */
final class TrainerObjects {
    static final String RUNTIME_SNAPSHOT_SUFFIX = "-runtime-snapshot";
    static final String SSH_AUTH_SUFFIX = "-mpi-ssh-auth";
    static final String HOSTFILE_SUFFIX = "-mpi-hostfile";
    /** secp521r1, the curve of the Trainer's MPI keys (1.3.132.0.35). */
    private static final byte[] P521_OID = {0x06, 0x05, 0x2b, (byte) 0x81, 0x04, 0x00, 0x23};

    private static final int P521_BYTES = 66;

    private TrainerObjects() {}

    /**
     * The runtime a TrainJob renders from (the Trainer's getRuntimeSnapshot and createRuntimeSnapshot): its snapshot
     * when one was taken, else the runtime it names, of which a snapshot is taken now, so that a runtime changed or
     * deleted after the job's first render does not change the job.
     */
    static GenericKubernetesResource runtime(
            KubernetesClient client, GenericKubernetesResource job, Supplier<GenericKubernetesResource> named) {
        String namespace = job.getMetadata().getNamespace();
        String name = job.getMetadata().getName() + RUNTIME_SNAPSHOT_SUFFIX;
        ConfigMap snapshot =
                client.configMaps().inNamespace(namespace).withName(name).get();
        if (snapshot != null) {
            if (snapshot.getMetadata().getOwnerReferences().stream()
                    .noneMatch(owner -> Boolean.TRUE.equals(owner.getController())
                            && job.getMetadata().getUid().equals(owner.getUid()))) {
                // the Trainer's words; the job is not rendered
                throw new IllegalStateException(
                        "invalid runtime snapshot: a snapshot configmap exists but is owned" + " by another object");
            }
            if (!snapshot.getData().containsKey("runtime")) {
                throw new IllegalStateException(
                        "invalid runtime snapshot: snapshot ConfigMap missing \"runtime\" data" + " key");
            }
            return Serialization.unmarshal(snapshot.getData().get("runtime"), GenericKubernetesResource.class);
        }
        GenericKubernetesResource runtime = named.get();
        client.configMaps()
                .inNamespace(namespace)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .withOwnerReferences(JobSetObjects.ownedBy(job))
                        .endMetadata()
                        .addToData("runtime", Serialization.asYaml(runtime).replaceFirst("^---\n", ""))
                        .build())
                .create();
        return runtime;
    }

    /**
     * For a runtime with an MPI policy (the MPI plugin's Build): the SSH key pair, once (the Secret is immutable), and
     * the OpenMPI hostfile, one line per node pod (the launcher's too when it runs as a node) with its slots.
     */
    static void writeMpi(
            KubernetesClient client, GenericKubernetesResource job, Map<String, Object> runtimeSpec, int numNodes) {
        Map<String, Object> mlPolicy = map(runtimeSpec.get("mlPolicy"));
        if (!mlPolicy.containsKey("mpi")) {
            return;
        }
        Map<String, Object> mpi = map(mlPolicy.get("mpi"));
        String namespace = job.getMetadata().getNamespace();
        String jobName = job.getMetadata().getName();
        if (client.secrets()
                        .inNamespace(namespace)
                        .withName(jobName + SSH_AUTH_SUFFIX)
                        .get()
                == null) {
            KeyPair keys = p521KeyPair();
            try {
                client.secrets()
                        .inNamespace(namespace)
                        .resource(new SecretBuilder()
                                .withNewMetadata()
                                .withName(jobName + SSH_AUTH_SUFFIX)
                                .withNamespace(namespace)
                                .withOwnerReferences(JobSetObjects.ownedBy(job))
                                .endMetadata()
                                .withType("kubernetes.io/ssh-auth")
                                .withImmutable(true)
                                .addToData(
                                        "ssh-privatekey",
                                        base64(privateKeyPem(
                                                (ECPrivateKey) keys.getPrivate(), (ECPublicKey) keys.getPublic())))
                                .addToData("ssh-publickey", base64(authorizedKey((ECPublicKey) keys.getPublic())))
                                .build())
                        .create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        }
        StringBuilder hostfile = new StringBuilder();
        if ("OpenMPI".equals(mpi.getOrDefault("mpiImplementation", "OpenMPI"))) {
            boolean launcherAsNode = Boolean.TRUE.equals(mpi.get("runLauncherAsNode"));
            int slots = PodRendering.mpiSlots(job, runtimeSpec);
            Map<String, Object> template = map(map(runtimeSpec.get("template")).get("spec"));
            Object subdomain = map(template.get("network")).get("subdomain");
            for (Object item : list(template.get("replicatedJobs"))) {
                Map<String, Object> replicatedJob = map(item);
                String name = (String) replicatedJob.get("name");
                if (!"node".equals(name) && !(launcherAsNode && "launcher".equals(name))) {
                    continue;
                }
                int replicas = replicatedJob.get("replicas") instanceof Number n ? n.intValue() : 1;
                int pods = PodRendering.podCount(replicatedJob, mlPolicy, numNodes);
                for (int replica = 0; replica < replicas; replica++) {
                    for (int pod = 0; pod < pods; pod++) {
                        hostfile.append(jobName)
                                .append('-')
                                .append(name)
                                .append('-')
                                .append(replica)
                                .append('-')
                                .append(pod)
                                .append('.')
                                .append(subdomain instanceof String s ? s : jobName)
                                .append(" slots=")
                                .append(slots)
                                .append('\n');
                    }
                }
            }
        }
        client.configMaps()
                .inNamespace(namespace)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(jobName + HOSTFILE_SUFFIX)
                        .withNamespace(namespace)
                        .withOwnerReferences(JobSetObjects.ownedBy(job))
                        .endMetadata()
                        .addToData("hostfile", hostfile.toString())
                        .build())
                .createOr(NonDeletingOperation::update);
    }

    private static KeyPair p521KeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp521r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no P-521 keys in this JVM", e);
        }
    }

    /** The private key as Go's x509.MarshalECPrivateKey writes it (SEC 1, RFC 5915), in PEM: "EC PRIVATE KEY". */
    private static String privateKeyPem(ECPrivateKey key, ECPublicKey publicKey) {
        byte[] sec1 = der(
                0x30,
                concat(
                        new byte[] {0x02, 0x01, 0x01},
                        der(0x04, unsigned(key.getS(), P521_BYTES)),
                        der(0xa0, P521_OID),
                        der(0xa1, der(0x03, concat(new byte[] {0}, point(publicKey))))));
        return "-----BEGIN EC PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(sec1)
                + "\n-----END EC PRIVATE KEY-----\n";
    }

    /** The public key as ssh.MarshalAuthorizedKey writes it: "ecdsa-sha2-nistp521 <base64 of the SSH wire form>\n". */
    private static String authorizedKey(ECPublicKey key) {
        byte[] wire = concat(
                sshString("ecdsa-sha2-nistp521".getBytes(StandardCharsets.US_ASCII)),
                sshString("nistp521".getBytes(StandardCharsets.US_ASCII)),
                sshString(point(key)));
        return "ecdsa-sha2-nistp521 " + Base64.getEncoder().encodeToString(wire) + "\n";
    }

    /** The uncompressed point: 0x04, then x and y, each in the curve's size. */
    private static byte[] point(ECPublicKey key) {
        return concat(
                new byte[] {0x04},
                unsigned(key.getW().getAffineX(), P521_BYTES),
                unsigned(key.getW().getAffineY(), P521_BYTES));
    }

    private static byte[] unsigned(BigInteger value, int size) {
        byte[] bytes = value.toByteArray();
        byte[] sized = new byte[size];
        int copied = Math.min(bytes.length, size);
        System.arraycopy(bytes, bytes.length - copied, sized, size - copied, copied);
        return sized;
    }

    private static byte[] sshString(byte[] value) {
        return concat(
                new byte[] {
                    (byte) (value.length >>> 24),
                    (byte) (value.length >>> 16),
                    (byte) (value.length >>> 8),
                    (byte) value.length
                },
                value);
    }

    /** One DER element: its tag, its length (long form past 127), its content. */
    private static byte[] der(int tag, byte[] content) {
        int length = content.length;
        byte[] header = length < 0x80
                ? new byte[] {(byte) tag, (byte) length}
                : length < 0x100
                        ? new byte[] {(byte) tag, (byte) 0x81, (byte) length}
                        : new byte[] {(byte) tag, (byte) 0x82, (byte) (length >>> 8), (byte) length};
        return concat(header, content);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
    }
}
