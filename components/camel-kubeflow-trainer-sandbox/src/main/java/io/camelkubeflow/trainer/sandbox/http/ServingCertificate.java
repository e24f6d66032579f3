package io.camelkubeflow.trainer.sandbox.http;

import io.vertx.core.net.KeyCertOptions;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificate the sandbox's API server serves TLS with: self-signed, made at start for the loopback names
 * (127.0.0.1, ::1, localhost), its key never leaving memory. TLS because kubectl (client-go) sends a kubeconfig's
 * token only to an https server; the certificate is its own authority, handed to clients in the kubeconfig's
 * {@code certificate-authority-data} and the sandbox's client, as a cluster's CA is.
 */
public final class ServingCertificate {
    private static final Duration VALIDITY = Duration.ofDays(365);
    /** How far back it is valid from, for clocks a little behind. */
    private static final Duration BACKDATED = Duration.ofHours(1);

    private static final char[] IN_MEMORY = new char[0];
    private final X509Certificate certificate;
    private final KeyManagerFactory keyManagers;

    private ServingCertificate(X509Certificate certificate, KeyManagerFactory keyManagers) {
        this.certificate = certificate;
        this.keyManagers = keyManagers;
    }

    /** A new key (EC P-256: made in milliseconds) and a certificate for it. */
    public static ServingCertificate create() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair key = generator.generateKeyPair();
            X500Name name = new X500Name("CN=trainer-sandbox");
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    name,
                    new BigInteger(127, new SecureRandom()),
                    Date.from(now.minus(BACKDATED)),
                    Date.from(now.plus(VALIDITY)),
                    name,
                    key.getPublic());
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            // what strict verifiers (OpenSSL's X509_STRICT, which Python's ssl may set) ask of a self-signed authority
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(
                            Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign))
                    .addExtension(
                            Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(
                            Extension.subjectKeyIdentifier,
                            false,
                            extensions.createSubjectKeyIdentifier(key.getPublic()))
                    .addExtension(
                            Extension.authorityKeyIdentifier,
                            false,
                            extensions.createAuthorityKeyIdentifier(key.getPublic()))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                        new GeneralName(GeneralName.iPAddress, "::1"),
                        new GeneralName(GeneralName.dNSName, "localhost")
                    }));
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(
                            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())));
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("sandbox", key.getPrivate(), IN_MEMORY, new X509Certificate[] {certificate});
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(store, IN_MEMORY);
            return new ServingCertificate(certificate, keyManagers);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("the sandbox cannot make its TLS certificate: " + e.getMessage(), e);
        }
    }

    /** The key and certificate, for the API server. */
    KeyCertOptions keyCertOptions() {
        return KeyCertOptions.wrap(keyManagers);
    }

    /** The certificate in PEM, as a kubeconfig's {@code certificate-authority-data} holds it (base64 once more). */
    public String pem() {
        try {
            return "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A TLS context that trusts this certificate alone, for clients made by hand. */
    public SSLContext trustingContext() {
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("sandbox", certificate);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
