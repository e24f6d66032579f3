// pki makes the test cluster's certificates and kubeconfigs: one CA; serving certificates for etcd, the API
// server and the loopback servers (webhooks, the node agent); a client certificate and kubeconfig for each
// identity; the service-account signing key. Every port of the cluster checks a certificate or a token from
// this set, so nothing on the machine reaches the cluster without one.
//
// Usage: pki STATE_DIR API_SERVER_URL
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

type identity struct {
	file   string
	user   string
	groups []string
}

// The identities the pieces of the cluster act as. The Trainer and JobSet managers act as the service
// accounts their own manifests bind their ClusterRoles to, so the RBAC they get is the one a user installs.
var identities = []identity{
	{"admin", "kubernetes-admin", []string{"system:masters"}},
	{"kube-controller-manager", "system:kube-controller-manager", nil},
	{"kube-scheduler", "system:kube-scheduler", nil},
	{"trainer-controller-manager", "system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager",
		[]string{"system:serviceaccounts", "system:serviceaccounts:kubeflow-system", "system:authenticated"}},
	{"jobset-controller-manager", "system:serviceaccount:kubeflow-system:jobset-controller-manager",
		[]string{"system:serviceaccounts", "system:serviceaccounts:kubeflow-system", "system:authenticated"}},
	{"kueue-controller-manager", "system:serviceaccount:kueue-system:kueue-controller-manager",
		[]string{"system:serviceaccounts", "system:serviceaccounts:kueue-system", "system:authenticated"}},
	{"coredns", "system:serviceaccount:kube-system:coredns",
		[]string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}},
	// The node agent registers fake nodes, runs their pods and writes their status for any node name, which
	// the Node authorizer would give only one identity per node.
	{"node-agent", "testcluster:node-agent", []string{"system:masters"}},
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pki STATE_DIR API_SERVER_URL")
		os.Exit(2)
	}
	dir := filepath.Join(os.Args[1], "pki")
	server := os.Args[2]
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(err)
	}
	caKey, caCert := newCA("camel-kubeflow-trainer-testcluster-ca")
	write(dir, "ca.crt", pemBlock("CERTIFICATE", caCert.Raw))
	write(dir, "ca.key", keyPEM(caKey))
	// The controller manager signs approved CSRs with a CA of its own that no port of the cluster trusts, so a
	// certificate got through a CSR opens neither etcd nor the node agent nor the API server.
	signerKey, signerCert := newCA("camel-kubeflow-trainer-testcluster-csr-signer")
	write(dir, "csr-signer.crt", pemBlock("CERTIFICATE", signerCert.Raw))
	write(dir, "csr-signer.key", keyPEM(signerKey))

	loopback := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}
	serve := func(name string, dns []string, ips []net.IP, extraUsage ...x509.ExtKeyUsage) {
		key, der := sign(caKey, caCert, pkix.Name{CommonName: name}, dns, ips,
			append([]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, extraUsage...))
		write(dir, name+".crt", pemBlock("CERTIFICATE", der))
		write(dir, name+".key", keyPEM(key))
	}
	serve("etcd-server", []string{"localhost"}, loopback, x509.ExtKeyUsageClientAuth)
	serve("kube-apiserver", []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local"}, append(loopback, net.ParseIP("10.96.0.1")))
	serve("loopback-serving", []string{"localhost"}, loopback)

	client := func(file, user string, groups []string) (*ecdsa.PrivateKey, []byte) {
		key, der := sign(caKey, caCert, pkix.Name{CommonName: user, Organization: groups}, nil, nil,
			[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
		write(dir, file+".crt", pemBlock("CERTIFICATE", der))
		write(dir, file+".key", keyPEM(key))
		return key, der
	}
	client("apiserver-etcd-client", "kube-apiserver-etcd-client", nil)
	client("apiserver-kubelet-client", "kube-apiserver-kubelet-client", []string{"system:masters"})

	for _, id := range identities {
		key, der := client(id.file, id.user, id.groups)
		write(os.Args[1], id.file+".kubeconfig", kubeconfig(server, caCert.Raw, der, key))
	}

	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		fail(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		fail(err)
	}
	write(dir, "sa.key", pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)))
	write(dir, "sa.pub", pemBlock("PUBLIC KEY", pub))
}

func newCA(name string) (*ecdsa.PrivateKey, *x509.Certificate) {
	key := newKey()
	template := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		fail(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		fail(err)
	}
	return key, cert
}

func sign(caKey *ecdsa.PrivateKey, ca *x509.Certificate, subject pkix.Name, dns []string, ips []net.IP,
	usage []x509.ExtKeyUsage) (*ecdsa.PrivateKey, []byte) {
	key := newKey()
	template := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      subject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  usage,
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		fail(err)
	}
	return key, der
}

func kubeconfig(server string, ca, cert []byte, key *ecdsa.PrivateKey) []byte {
	b64 := base64.StdEncoding.EncodeToString
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: testcluster
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: testcluster
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: testcluster
  context:
    cluster: testcluster
    user: testcluster
current-context: testcluster
`, server, b64(pemBlock("CERTIFICATE", ca)), b64(pemBlock("CERTIFICATE", cert)), b64(keyPEM(key))))
}

func newKey() *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fail(err)
	}
	return key
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		fail(err)
	}
	return n
}

func keyPEM(key *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		fail(err)
	}
	return pemBlock("EC PRIVATE KEY", der)
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func write(dir, name string, content []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pki:", err)
	os.Exit(1)
}
