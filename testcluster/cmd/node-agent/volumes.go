package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// prepareVolumes materializes every volume of the pod under dir/volumes and says where each one is.
func (r *podRun) prepareVolumes(ctx context.Context, dir string) (map[string]string, error) {
	paths := map[string]string{}
	for _, v := range r.pod.Spec.Volumes {
		path := filepath.Join(dir, "volumes", v.Name)
		files := map[string]fileContent{}
		var err error
		switch {
		case v.HostPath != nil:
			paths[v.Name] = v.HostPath.Path
			continue
		case v.EmptyDir != nil:
			// the kubelet's emptyDir is open to every user of the pod
			if err := ensureDir(path); err != nil {
				return nil, err
			}
			if err := os.Chmod(path, 0o777); err != nil {
				return nil, err
			}
			paths[v.Name] = path
			if err := r.applyFSGroup(path, false); err != nil {
				return nil, err
			}
			continue
		case v.ConfigMap != nil:
			err = r.configMapFiles(ctx, v.ConfigMap.Name, v.ConfigMap.Items, v.ConfigMap.DefaultMode,
				ptr.Deref(v.ConfigMap.Optional, false), files)
		case v.Secret != nil:
			err = r.secretFiles(ctx, v.Secret.SecretName, v.Secret.Items, v.Secret.DefaultMode,
				ptr.Deref(v.Secret.Optional, false), files)
		case v.DownwardAPI != nil:
			err = r.downwardFiles(v.DownwardAPI.Items, v.DownwardAPI.DefaultMode, files)
		case v.Projected != nil:
			err = r.projectedFiles(ctx, v.Projected, files)
		default:
			return nil, fmt.Errorf("volume %q: the node agent mounts emptyDir, hostPath, configMap, secret, "+
				"downwardAPI and projected volumes only", v.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("MountVolume.SetUp failed for volume %q : %w", v.Name, err)
		}
		if err := writeFiles(path, files); err != nil {
			return nil, err
		}
		if err := r.applyFSGroup(path, true); err != nil {
			return nil, err
		}
		paths[v.Name] = path
	}
	return paths, nil
}

type fileContent struct {
	data []byte
	mode os.FileMode
}

func modeOf(item *int32, fallback *int32) os.FileMode {
	if item != nil {
		return os.FileMode(*item)
	}
	if fallback != nil {
		return os.FileMode(*fallback)
	}
	return 0o644
}

func pick(data map[string][]byte, items []corev1.KeyToPath, defaultMode *int32, files map[string]fileContent) error {
	if len(items) == 0 {
		for key, value := range data {
			files[key] = fileContent{value, modeOf(nil, defaultMode)}
		}
		return nil
	}
	for _, item := range items {
		value, ok := data[item.Key]
		if !ok {
			return fmt.Errorf("configmap references non-existent config key: %s", item.Key)
		}
		files[item.Path] = fileContent{value, modeOf(item.Mode, defaultMode)}
	}
	return nil
}

func (r *podRun) configMapFiles(ctx context.Context, name string, items []corev1.KeyToPath, mode *int32,
	optional bool, files map[string]fileContent) error {
	cm, err := r.agent.client.CoreV1().ConfigMaps(r.pod.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if optional {
			return nil
		}
		return fmt.Errorf("configmap %q not found", name)
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return pick(data, items, mode, files)
}

func (r *podRun) secretFiles(ctx context.Context, name string, items []corev1.KeyToPath, mode *int32,
	optional bool, files map[string]fileContent) error {
	secret, err := r.agent.client.CoreV1().Secrets(r.pod.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if optional {
			return nil
		}
		return fmt.Errorf("secret %q not found", name)
	}
	return pick(secret.Data, items, mode, files)
}

func (r *podRun) downwardFiles(items []corev1.DownwardAPIVolumeFile, mode *int32, files map[string]fileContent) error {
	for _, item := range items {
		if item.FieldRef == nil {
			return fmt.Errorf("downwardAPI item %q: the node agent resolves fieldRef only", item.Path)
		}
		value, err := r.fieldValue(item.FieldRef.FieldPath)
		if err != nil {
			return err
		}
		files[item.Path] = fileContent{[]byte(value), modeOf(item.Mode, mode)}
	}
	return nil
}

func (r *podRun) projectedFiles(ctx context.Context, p *corev1.ProjectedVolumeSource, files map[string]fileContent) error {
	for _, source := range p.Sources {
		var err error
		switch {
		case source.ServiceAccountToken != nil:
			err = r.tokenFile(ctx, source.ServiceAccountToken, p.DefaultMode, files)
		case source.ConfigMap != nil:
			err = r.configMapFiles(ctx, source.ConfigMap.Name, source.ConfigMap.Items, p.DefaultMode,
				ptr.Deref(source.ConfigMap.Optional, false), files)
		case source.Secret != nil:
			err = r.secretFiles(ctx, source.Secret.Name, source.Secret.Items, p.DefaultMode,
				ptr.Deref(source.Secret.Optional, false), files)
		case source.DownwardAPI != nil:
			err = r.downwardFiles(source.DownwardAPI.Items, p.DefaultMode, files)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tokenFile asks the API server for a token bound to the pod, as the kubelet does for a projected token.
func (r *podRun) tokenFile(ctx context.Context, source *corev1.ServiceAccountTokenProjection, mode *int32,
	files map[string]fileContent) error {
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: source.ExpirationSeconds,
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1",
			Name: r.pod.Name, UID: r.pod.UID},
	}}
	if source.Audience != "" {
		request.Spec.Audiences = []string{source.Audience}
	}
	account := r.pod.Spec.ServiceAccountName
	if account == "" {
		account = "default"
	}
	token, err := r.agent.client.CoreV1().ServiceAccounts(r.pod.Namespace).CreateToken(ctx, account, request,
		metav1.CreateOptions{})
	if err != nil {
		return err
	}
	files[source.Path] = fileContent{[]byte(token.Status.Token), modeOf(nil, mode)}
	return nil
}

var fieldSubscript = regexp.MustCompile(`^metadata\.(labels|annotations)\['(.+)'\]$`)

func (r *podRun) fieldValue(path string) (string, error) {
	pod := r.pod
	if m := fieldSubscript.FindStringSubmatch(path); m != nil {
		if m[1] == "labels" {
			return pod.Labels[m[2]], nil
		}
		return pod.Annotations[m[2]], nil
	}
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.podIP", "status.hostIPs", "status.podIPs":
		return "127.0.0.1", nil
	}
	return "", fmt.Errorf("unsupported fieldPath %q", path)
}

func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q\n", k, m[k])
	}
	return b.String()
}

// writeFiles lays the volume's files out afresh: a volume's content is what its source holds now.
func writeFiles(dir string, files map[string]fileContent) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := ensureDir(dir); err != nil {
		return err
	}
	for name, f := range files {
		path := filepath.Join(dir, filepath.Clean("/"+name))
		if err := ensureDir(filepath.Dir(path)); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.data, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(path, f.mode); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(path string, value any) error {
	body, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o600)
}

// applyFSGroup gives a volume to the pod's fsGroup as the kubelet's SetVolumeOwnership does: every file and
// directory in the group, readable by it (and writable, on a volume that is not read-only), directories setgid.
func (r *podRun) applyFSGroup(dir string, readOnly bool) error {
	security := r.pod.Spec.SecurityContext
	if security == nil || security.FSGroup == nil {
		return nil
	}
	group := int(*security.FSGroup)
	mask := os.FileMode(0o660)
	if readOnly {
		mask = 0o440
	}
	return filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, -1, group); err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return nil
		}
		bits := mask
		if info.IsDir() {
			bits |= os.ModeSetgid | 0o110
		}
		return os.Chmod(path, info.Mode()|bits)
	})
}
