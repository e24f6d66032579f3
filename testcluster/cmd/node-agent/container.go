package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/kubernetes/third_party/forked/golang/expansion"
)

const runContainerCommand = "run-container"

// containerSpec is what the child process needs to become the container.
type containerSpec struct {
	Argv   []string `json:"argv"`
	Env    []string `json:"env"`
	Dir    string   `json:"dir"`
	Mounts []mount  `json:"mounts"`
	UID    *int64   `json:"uid,omitempty"`
	GID    *int64   `json:"gid,omitempty"`
	// Groups are the supplementary groups: the pod's fsGroup and supplementalGroups.
	Groups   []int  `json:"groups,omitempty"`
	Hostname string `json:"hostname"`
	// NetNS is the pod's network namespace; empty for a pod on the node's network.
	NetNS string `json:"netns,omitempty"`
}

type mount struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly"`
}

// containerSpec resolves the container's environment as the kubelet does (service variables, envFrom, env with
// valueFrom, $(VAR) expansion in command and args) and its mounts.
func (r *podRun) containerSpec(ctx context.Context, c corev1.Container, volumes map[string]string,
	layerDir string) (containerSpec, error) {
	pod := r.pod
	env := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, seen := env[k]; !seen {
			order = append(order, k)
		}
		env[k] = v
	}
	set("PATH", os.Getenv("PATH"))
	hostname := r.hostname()
	set("HOSTNAME", hostname)
	set("HOME", "/root")
	layer := r.agent.images.layer(c.Image)
	if layer != nil {
		for k, v := range layer.Env {
			set(k, v)
		}
	}
	set("KUBERNETES_SERVICE_HOST", "127.0.0.1")
	set("KUBERNETES_SERVICE_PORT", r.agent.apiPort)
	set("KUBERNETES_SERVICE_PORT_HTTPS", r.agent.apiPort)
	for _, from := range c.EnvFrom {
		var data map[string]string
		switch {
		case from.ConfigMapRef != nil:
			cm, err := r.agent.client.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, from.ConfigMapRef.Name, metav1.GetOptions{})
			if err != nil {
				if from.ConfigMapRef.Optional != nil && *from.ConfigMapRef.Optional {
					continue
				}
				return containerSpec{}, fmt.Errorf("configmap %q not found", from.ConfigMapRef.Name)
			}
			data = cm.Data
		case from.SecretRef != nil:
			secret, err := r.agent.client.CoreV1().Secrets(pod.Namespace).Get(ctx, from.SecretRef.Name, metav1.GetOptions{})
			if err != nil {
				if from.SecretRef.Optional != nil && *from.SecretRef.Optional {
					continue
				}
				return containerSpec{}, fmt.Errorf("secret %q not found", from.SecretRef.Name)
			}
			data = map[string]string{}
			for k, v := range secret.Data {
				data[k] = string(v)
			}
		}
		for k, v := range data {
			set(from.Prefix+k, v)
		}
	}
	for _, e := range c.Env {
		value := e.Value
		if e.Value != "" {
			value = expansion.Expand(e.Value, expansion.MappingFuncFor(env))
		}
		if e.ValueFrom != nil {
			var err error
			if value, err = r.envValue(ctx, c, e.ValueFrom); err != nil {
				return containerSpec{}, fmt.Errorf("env %s: %w", e.Name, err)
			}
		}
		set(e.Name, value)
	}
	mapping := expansion.MappingFuncFor(env)
	argv := make([]string, 0, len(c.Command)+len(c.Args))
	for _, word := range append(append([]string{}, c.Command...), c.Args...) {
		argv = append(argv, expansion.Expand(word, mapping))
	}
	if len(c.Command) == 0 {
		return containerSpec{}, fmt.Errorf("container %q has no command: the node agent runs commands on this "+
			"machine and knows no image's entrypoint", c.Name)
	}
	spec := containerSpec{Argv: argv, Dir: c.WorkingDir, Hostname: hostname, NetNS: r.netns}
	if spec.Dir == "" && layer != nil {
		spec.Dir = layer.WorkingDir
	}
	if podSecurity := pod.Spec.SecurityContext; podSecurity != nil {
		if podSecurity.FSGroup != nil {
			spec.Groups = append(spec.Groups, int(*podSecurity.FSGroup))
		}
		for _, g := range podSecurity.SupplementalGroups {
			spec.Groups = append(spec.Groups, int(g))
		}
	}
	for _, k := range order {
		spec.Env = append(spec.Env, k+"="+env[k])
	}
	if layer != nil {
		mounts, err := layer.materialize(layerDir, r.agent.images.files)
		if err != nil {
			return containerSpec{}, fmt.Errorf("the image layer of %s: %w", c.Image, err)
		}
		spec.Mounts = append(spec.Mounts, mounts...)
	}
	// the kubelet's /etc/hosts, /etc/hostname and /etc/resolv.conf, unless the container mounts its own there
	for _, m := range r.podMounts {
		if !mountsAt(c.VolumeMounts, m.Target) {
			spec.Mounts = append(spec.Mounts, m)
		}
	}
	for _, m := range c.VolumeMounts {
		source, ok := volumes[m.Name]
		if !ok {
			return containerSpec{}, fmt.Errorf("volume mount %q names no volume of the pod", m.Name)
		}
		if m.SubPath != "" {
			source = source + "/" + m.SubPath
		}
		spec.Mounts = append(spec.Mounts, mount{Source: source, Target: m.MountPath, ReadOnly: m.ReadOnly})
	}
	security := c.SecurityContext
	if security != nil && security.RunAsUser != nil {
		spec.UID = security.RunAsUser
	} else if pod.Spec.SecurityContext != nil {
		spec.UID = pod.Spec.SecurityContext.RunAsUser
	}
	if security != nil && security.RunAsGroup != nil {
		spec.GID = security.RunAsGroup
	} else if pod.Spec.SecurityContext != nil {
		spec.GID = pod.Spec.SecurityContext.RunAsGroup
	}
	return spec, nil
}

func (r *podRun) envValue(ctx context.Context, c corev1.Container, from *corev1.EnvVarSource) (string, error) {
	pod := r.pod
	switch {
	case from.FieldRef != nil:
		return r.fieldValue(from.FieldRef.FieldPath)
	case from.ResourceFieldRef != nil:
		return resourceValue(c, from.ResourceFieldRef)
	case from.ConfigMapKeyRef != nil:
		cm, err := r.agent.client.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, from.ConfigMapKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			if from.ConfigMapKeyRef.Optional != nil && *from.ConfigMapKeyRef.Optional {
				return "", nil
			}
			return "", err
		}
		return cm.Data[from.ConfigMapKeyRef.Key], nil
	case from.SecretKeyRef != nil:
		secret, err := r.agent.client.CoreV1().Secrets(pod.Namespace).Get(ctx, from.SecretKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			if from.SecretKeyRef.Optional != nil && *from.SecretKeyRef.Optional {
				return "", nil
			}
			return "", err
		}
		return string(secret.Data[from.SecretKeyRef.Key]), nil
	}
	return "", fmt.Errorf("unsupported valueFrom")
}

func resourceValue(c corev1.Container, ref *corev1.ResourceFieldSelector) (string, error) {
	kind, name, _ := strings.Cut(ref.Resource, ".")
	list := c.Resources.Requests
	if kind == "limits" {
		list = c.Resources.Limits
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		// An unset limit is the node's allocatable, as the kubelet reports it.
		return map[string]string{"cpu": "64", "memory": "274877906944", "ephemeral-storage": "1099511627776"}[name], nil
	}
	divisor := ref.Divisor
	if divisor.IsZero() {
		return fmt.Sprint(q.Value()), nil
	}
	return fmt.Sprint((q.MilliValue() + divisor.MilliValue() - 1) / divisor.MilliValue()), nil
}

// runContainer is the child: in its own mount namespace it mounts the volumes, takes the container's user and
// working directory, and becomes the container's command.
func runContainer() {
	body, err := os.ReadFile(os.Args[2])
	if err != nil {
		fatal(err)
	}
	var spec containerSpec
	if err := json.Unmarshal(body, &spec); err != nil {
		fatal(err)
	}
	if spec.NetNS != "" {
		joinPodNamespaces(spec)
	}
	done := sets.New[string]()
	for _, m := range spec.Mounts {
		if err := bindMount(m); err != nil {
			fatal(fmt.Errorf("mounting %s: %w", m.Target, err))
		}
		done.Insert(m.Target)
	}
	if len(spec.Groups) > 0 || spec.UID != nil {
		// a container that names its user has the pod's groups, never the agent's own
		if err := syscall.Setgroups(spec.Groups); err != nil {
			fatal(err)
		}
	}
	if spec.GID != nil {
		if err := syscall.Setgid(int(*spec.GID)); err != nil {
			fatal(err)
		}
	}
	if spec.UID != nil {
		if err := syscall.Setuid(int(*spec.UID)); err != nil {
			fatal(err)
		}
	}
	if spec.Dir != "" {
		if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
			fatal(err)
		}
		if err := os.Chdir(spec.Dir); err != nil {
			fatal(err)
		}
	}
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	path, err := exec.LookPath(spec.Argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "exec: %q: executable file not found in $PATH\n", spec.Argv[0])
		os.Exit(127)
	}
	fatal(syscall.Exec(path, spec.Argv, spec.Env))
}

// joinPodNamespaces puts this process in its pod's network namespace and gives its own UTS namespace (made at
// its start) the pod's hostname. The thread stays locked: the exec that follows keeps this thread's namespaces.
func joinPodNamespaces(spec containerSpec) {
	runtime.LockOSThread()
	ns, err := os.Open(spec.NetNS)
	if err != nil {
		fatal(err)
	}
	if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
		fatal(fmt.Errorf("joining %s: %w", spec.NetNS, err))
	}
	ns.Close()
	if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
		fatal(err)
	}
	// this mount namespace's copies of the pods' namespace mounts would keep every other pod's network alive
	// after its teardown; the container needs none of them
	_ = unix.Unmount("/run/netns", unix.MNT_DETACH)
}

func mountsAt(mounts []corev1.VolumeMount, target string) bool {
	for _, m := range mounts {
		if m.MountPath == target {
			return true
		}
	}
	return false
}

func bindMount(m mount) error {
	info, err := os.Stat(m.Source)
	if err != nil {
		return err
	}
	if info.IsDir() {
		err = os.MkdirAll(m.Target, 0o755)
	} else {
		if err = os.MkdirAll(parentOf(m.Target), 0o755); err == nil {
			var f *os.File
			if f, err = os.OpenFile(m.Target, os.O_CREATE, 0o644); err == nil {
				f.Close()
			}
		}
	}
	if err != nil {
		return err
	}
	if err := syscall.Mount(m.Source, m.Target, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return err
	}
	if m.ReadOnly {
		return syscall.Mount("", m.Target, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_REC, "")
	}
	return nil
}

func parentOf(path string) string {
	i := strings.LastIndex(path, "/")
	if i <= 0 {
		return "/"
	}
	return path[:i]
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "node-agent:", err)
	os.Exit(128)
}
