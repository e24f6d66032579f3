// managerconfig writes a controller manager's configuration as released, changing only the fields named: the test
// cluster runs the Trainer and JobSet managers as processes beside the API server, so their webhook, probe, metrics,
// leader election and certificate settings must point at loopback, while everything else (controller concurrency,
// client QPS and burst, feature gates) stays what the release's ConfigMap gives a user's install.
//
// Usage: managerconfig RELEASE_CONFIG PATH=YAML_VALUE... > config.yaml
//
// A PATH is dot-separated keys (webhook.port=26410); the value is read as YAML (false, 0, "0"). Each change is told on
// standard error, beside the release's value, so a run's log shows every departure from the release.
package main

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: managerconfig RELEASE_CONFIG PATH=YAML_VALUE... > config.yaml")
		os.Exit(2)
	}
	release, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	var config map[string]any
	if err := yaml.Unmarshal(release, &config); err != nil {
		fail(fmt.Errorf("%s: %w", os.Args[1], err))
	}
	for _, change := range os.Args[2:] {
		path, text, ok := strings.Cut(change, "=")
		if !ok {
			fail(fmt.Errorf("%q is not PATH=YAML_VALUE", change))
		}
		var value any
		if err := yaml.Unmarshal([]byte(text), &value); err != nil {
			fail(fmt.Errorf("%s: %w", change, err))
		}
		keys := strings.Split(path, ".")
		holder := config
		for _, key := range keys[:len(keys)-1] {
			next, ok := holder[key].(map[string]any)
			if !ok {
				next = map[string]any{}
				holder[key] = next
			}
			holder = next
		}
		last := keys[len(keys)-1]
		was, released := holder[last]
		holder[last] = value
		if released {
			fmt.Fprintf(os.Stderr, "managerconfig: %s: %v (released: %v)\n", path, value, was)
		} else {
			fmt.Fprintf(os.Stderr, "managerconfig: %s: %v (not in the release)\n", path, value)
		}
	}
	body, err := yaml.Marshal(config)
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(body)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "managerconfig:", err)
	os.Exit(1)
}
