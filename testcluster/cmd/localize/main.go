// localize turns the Kubeflow Trainer's install manifests (rendered by kustomize, JobSet's included) into those of
// the test cluster, changing only what a cluster without pods for controllers needs: the managers' Deployments
// are left out (up.sh runs the same managers as processes), so are aggregated APIServices (Kueue's visibility API:
// only a Service in front of a pod could serve one), and every webhook the API server calls (admission
// and CRD conversion) is pointed at the manager's loopback port with the cluster CA, in place of the in-cluster
// Service and the certificate the managers would otherwise inject.
//
// Usage: localize CA_FILE SERVICE=PORT... < rendered.yaml > localized.yaml
package main

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: localize CA_FILE SERVICE=PORT... < rendered.yaml > localized.yaml")
		os.Exit(2)
	}
	ca, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	ports := map[string]string{}
	for _, arg := range os.Args[2:] {
		service, port, ok := strings.Cut(arg, "=")
		if !ok {
			fail(fmt.Errorf("%q is not SERVICE=PORT", arg))
		}
		ports[service] = port
	}
	bundle := base64.StdEncoding.EncodeToString(ca)
	reader := utilyaml.NewYAMLReader(bufio.NewReader(os.Stdin))
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			fail(err)
		}
		var object map[string]any
		if err := yaml.Unmarshal(doc, &object); err != nil {
			fail(err)
		}
		if object == nil || object["kind"] == "Deployment" || object["kind"] == "APIService" {
			continue
		}
		switch object["kind"] {
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			webhooks, _ := object["webhooks"].([]any)
			for _, w := range webhooks {
				localizeClientConfig(w.(map[string]any), ports, bundle)
			}
		case "CustomResourceDefinition":
			if webhook, ok := dig(object, "spec", "conversion", "webhook"); ok {
				localizeClientConfig(webhook, ports, bundle)
			}
			if metadata, ok := dig(object, "metadata", "annotations"); ok {
				delete(metadata, "cert-manager.io/inject-ca-from")
			}
		}
		body, err := yaml.Marshal(object)
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(out, "---\n%s", body)
	}
}

func localizeClientConfig(holder map[string]any, ports map[string]string, bundle string) {
	config, _ := holder["clientConfig"].(map[string]any)
	service, _ := config["service"].(map[string]any)
	if service == nil {
		return
	}
	name, _ := service["name"].(string)
	port, ok := ports[name]
	if !ok {
		fail(fmt.Errorf("no port given for the webhook service %q", name))
	}
	path, _ := service["path"].(string)
	holder["clientConfig"] = map[string]any{"url": "https://127.0.0.1:" + port + path, "caBundle": bundle}
}

func dig(object map[string]any, keys ...string) (map[string]any, bool) {
	current := object
	for _, key := range keys {
		next, ok := current[key].(map[string]any)
		if !ok {
			return nil, false
		}
		current = next
	}
	return current, true
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "localize:", err)
	os.Exit(1)
}
