package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// podRun is one pod on the node, from its volumes to its last container's exit.
type podRun struct {
	agent *agent
	// pod is the pod as first seen: never replaced, so read without the lock
	pod *corev1.Pod
	// grace is the deletion grace period, once the pod is marked for deletion
	grace *int64

	mu         sync.Mutex
	containers map[string]*containerRun
	terminated bool
	deleting   chan struct{}
	deleteOnce sync.Once
	killed     chan struct{}
	killOnce   sync.Once
	startTime  metav1.Time
	// podIP is the pod's address on the pod network; the node's for a pod on the node's network.
	podIP string
	// netns is the path of the pod's network namespace, empty for a pod on the node's network.
	netns string
	// publishing makes status writes one at a time; publishedPhase is the phase the API server last took.
	publishing     sync.Mutex
	publishedPhase corev1.PodPhase
	resyncing      bool
	// backingOff names the containers waiting out a crash-loop back-off (their state: waiting, CrashLoopBackOff).
	backingOff map[string]bool
	// podMounts are the kubelet's files for every container (/etc/hosts, /etc/hostname, /etc/resolv.conf).
	podMounts []mount
}

// containerRun is one run of one container; a restart makes a new one and keeps the last as "previous".
type containerRun struct {
	name     string
	id       string
	logPath  string
	started  metav1.Time
	finished metav1.Time
	exitCode int
	reason   string
	running  bool
	restarts int32
	previous *containerRun
	done     chan struct{}
	process  *os.Process
	// ready is the result of the container's readiness probe; a container without one is ready while it runs.
	ready bool
	// spec is how the run was started: an exec probe runs beside it with the same mounts, user and network.
	spec containerSpec
}

func newPodRun(a *agent, pod *corev1.Pod) *podRun {
	return &podRun{agent: a, pod: pod.DeepCopy(), containers: map[string]*containerRun{},
		deleting: make(chan struct{}), killed: make(chan struct{}), startTime: metav1.Now(), podIP: "127.0.0.1",
		backingOff: map[string]bool{}}
}

// hostname is the kubelet's: the pod's spec.hostname, else its name cut to 63 characters.
func (r *podRun) hostname() string {
	if r.pod.Spec.Hostname != "" {
		return r.pod.Spec.Hostname
	}
	name := r.pod.Name
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-.")
	}
	return name
}

// terminate starts a graceful stop once the pod is marked for deletion.
func (r *podRun) terminate(pod *corev1.Pod) {
	r.deleteOnce.Do(func() {
		r.mu.Lock()
		r.grace = pod.DeletionGracePeriodSeconds
		r.mu.Unlock()
		close(r.deleting)
	})
}

// kill stops every process at once: the pod object is gone or the agent stops.
func (r *podRun) kill() {
	r.killOnce.Do(func() { close(r.killed) })
	r.signalAll(syscall.SIGKILL)
}

func (r *podRun) signalAll(sig syscall.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.containers {
		if c.running && c.process != nil {
			// The container runs as its own process group: the signal reaches every process it started.
			_ = syscall.Kill(-c.process.Pid, sig)
		}
	}
}

func (r *podRun) run(ctx context.Context) {
	pod := r.pod
	dir := r.agent.podDir(pod)
	volumes := map[string]string{}
	if !r.onFakeNode() && !r.keepTrying(ctx, "FailedMount", "", func() (err error) {
		volumes, err = r.prepareVolumes(ctx, dir)
		return err
	}) {
		return
	}
	if r.agent.network != nil && !r.onFakeNode() && !pod.Spec.HostNetwork {
		var podCIDR string
		if !r.keepTrying(ctx, "FailedCreatePodSandBox", "Failed to create pod sandbox: ", func() (err error) {
			podCIDR, err = r.setUpNetwork(ctx, dir)
			return err
		}) {
			return
		}
		defer func() {
			if err := r.agent.network.tearDown(pod, podCIDR); err != nil {
				klog.Warningf("tearing down the network of %s: %v", describe(pod), err)
			}
		}()
	}
	r.publish(ctx)

	for _, c := range pod.Spec.InitContainers {
		if !r.runUntilDone(ctx, c, volumes, dir, true) {
			r.publish(ctx)
			r.finish(ctx)
			return
		}
	}
	var wg sync.WaitGroup
	for _, c := range pod.Spec.Containers {
		wg.Add(1)
		go func(c corev1.Container) {
			defer wg.Done()
			r.runUntilDone(ctx, c, volumes, dir, false)
		}(c)
	}
	go r.stopOnDelete(ctx)
	wg.Wait()
	r.mu.Lock()
	r.terminated = true
	r.mu.Unlock()
	r.publish(ctx)
	r.finish(ctx)
}

// keepTrying runs a step of the pod's start until it succeeds, recording each failure as the kubelet's Event and
// trying again every 2 s; it says false when the pod is stopped first (a pod marked for deletion is finished).
func (r *podRun) keepTrying(ctx context.Context, reason, prefix string, step func() error) bool {
	for {
		err := step()
		if err == nil {
			return true
		}
		r.agent.event(ctx, r.pod, corev1.EventTypeWarning, reason, prefix+err.Error())
		select {
		case <-ctx.Done():
			return false
		case <-r.deleting:
			r.finish(ctx)
			return false
		case <-r.killed:
			return false
		case <-time.After(2 * time.Second):
		}
	}
}

// setUpNetwork gives the pod its network namespace and address, and writes the kubelet's files for it.
func (r *podRun) setUpNetwork(ctx context.Context, dir string) (string, error) {
	network := r.agent.network
	podCIDR, err := r.agent.nodePodCIDR(ctx, r.pod.Spec.NodeName)
	if err != nil {
		return "", err
	}
	ip, err := network.setUp(ctx, r.pod, podCIDR)
	if err == nil {
		var mounts []mount
		if mounts, err = network.podFiles(r.pod, dir, ip, r.hostname()); err == nil {
			r.mu.Lock()
			r.podIP, r.netns, r.podMounts = ip, network.namespacePath(r.pod), mounts
			r.mu.Unlock()
			return podCIDR, nil
		}
	}
	// a try that failed halfway leaves nothing behind (no namespace, no address lease), so the next try starts clean
	if teardown := network.tearDown(r.pod, podCIDR); teardown != nil {
		klog.Warningf("after a failed network set-up of %s: %v", describe(r.pod), teardown)
	}
	return "", err
}

// stopOnDelete sends SIGTERM when the pod is deleted and SIGKILL once its grace period is over.
func (r *podRun) stopOnDelete(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-r.killed:
		return
	case <-r.deleting:
	}
	var stopping []corev1.Container
	grace := int64(30)
	r.mu.Lock()
	for _, c := range r.pod.Spec.Containers {
		if run := r.containers[c.Name]; run != nil && run.running {
			stopping = append(stopping, c)
		}
	}
	if r.grace != nil {
		grace = *r.grace
	}
	r.mu.Unlock()
	for _, c := range stopping {
		r.agent.containerEvent(ctx, r.pod, c, corev1.EventTypeNormal, "Killing", "Stopping container "+c.Name)
	}
	r.signalAll(syscall.SIGTERM)
	select {
	case <-r.killed:
	case <-time.After(time.Duration(grace) * time.Second):
		r.signalAll(syscall.SIGKILL)
	}
}

// finish deletes the pod's object once it was marked for deletion and nothing of it runs any more.
func (r *podRun) finish(ctx context.Context) {
	select {
	case <-r.deleting:
		r.agent.finalDelete(ctx, r.pod)
	default:
	}
}

// runUntilDone runs a container, again after a failure while the restart policy asks for it; it says whether
// the container's last run succeeded.
func (r *podRun) runUntilDone(ctx context.Context, c corev1.Container, volumes map[string]string, dir string,
	initContainer bool) bool {
	policy := r.pod.Spec.RestartPolicy
	// the kubelet's crash-loop back-off: the first restart at once, then 10 s doubling to 5 min, forgotten once a
	// run outlasts 10 min (flowcontrol.NewBackOff(10s, 300s) with its 600 s expiry)
	var backoff time.Duration
	for attempt := int32(0); ; attempt++ {
		select {
		case <-r.deleting:
			return false
		case <-r.killed:
			return false
		default:
		}
		run := r.start(ctx, c, volumes, dir, attempt)
		if run.reason != "StartError" {
			r.publish(ctx)
			r.agent.containerEvent(ctx, r.pod, c, corev1.EventTypeNormal, "Pulled",
				fmt.Sprintf("Container image %q already present on machine", c.Image))
			r.agent.containerEvent(ctx, r.pod, c, corev1.EventTypeNormal, "Created", "Container created")
			r.agent.containerEvent(ctx, r.pod, c, corev1.EventTypeNormal, "Started", "Container started")
			if c.ReadinessProbe != nil && !initContainer && !r.onFakeNode() {
				go r.probeReadiness(ctx, c, run, filepath.Join(dir, "probes", run.id))
			}
			<-run.done
		}
		r.publish(ctx)
		failed := run.exitCode != 0
		restart := policy == corev1.RestartPolicyAlways || (policy == corev1.RestartPolicyOnFailure && failed) ||
			(initContainer && failed && policy != corev1.RestartPolicyNever)
		if !restart || ctx.Err() != nil {
			return !failed
		}
		if run.finished.Sub(run.started.Time) > 600*time.Second {
			backoff = 0
		}
		if backoff == 0 {
			backoff = 10 * time.Second
			continue
		}
		r.agent.containerEvent(ctx, r.pod, c, corev1.EventTypeWarning, "BackOff", fmt.Sprintf(
			"Back-off restarting failed container %s in pod %s_%s(%s)", c.Name, r.pod.Name, r.pod.Namespace, r.pod.UID))
		r.mu.Lock()
		r.backingOff[c.Name] = true
		r.mu.Unlock()
		r.publish(ctx)
		select {
		case <-ctx.Done():
			return false
		case <-r.deleting:
			return false
		case <-r.killed:
			return false
		case <-time.After(backoff):
		}
		r.mu.Lock()
		delete(r.backingOff, c.Name)
		r.mu.Unlock()
		backoff = min(2*backoff, 300*time.Second)
	}
}

func (r *podRun) start(ctx context.Context, c corev1.Container, volumes map[string]string, dir string,
	attempt int32) *containerRun {
	id := fmt.Sprintf("%s-%s-%d", shortID(string(r.pod.UID)), c.Name, attempt)
	run := &containerRun{name: c.Name, id: id, logPath: filepath.Join(dir, "logs", id+".log"),
		started: metav1.Now(), restarts: attempt, done: make(chan struct{})}
	r.mu.Lock()
	run.previous = r.containers[c.Name]
	r.containers[c.Name] = run
	r.mu.Unlock()

	if r.onFakeNode() {
		r.fakeLaunch(run)
		return run
	}
	spec, err := r.containerSpec(ctx, c, volumes, filepath.Join(dir, "containers", id))
	if err == nil {
		run.spec = spec
		err = r.launch(run, spec)
	}
	if err != nil {
		r.mu.Lock()
		run.reason, run.exitCode, run.finished = "StartError", 128, metav1.Now()
		r.mu.Unlock()
		writeLogLine(run.logPath, "stderr", "node-agent: "+err.Error())
		r.agent.containerEvent(ctx, r.pod, c, corev1.EventTypeWarning, "Failed", "Error: "+err.Error())
		close(run.done)
		klog.Warningf("starting %s in %s: %v", c.Name, describe(r.pod), err)
	}
	return run
}

// onFakeNode tells whether the pod is bound to one of the agent's fake nodes.
func (r *podRun) onFakeNode() bool {
	return r.agent.fakeNodes[r.pod.Spec.NodeName]
}

// fakeLaunch stands for a container on a fake node: it runs for the agent's fake run time, writes one log line,
// and ends with 0, or as killed when the pod is deleted first.
func (r *podRun) fakeLaunch(run *containerRun) {
	r.mu.Lock()
	run.running = true
	r.mu.Unlock()
	go func() {
		code := 0
		select {
		case <-time.After(r.agent.fakeRunTime):
		case <-r.deleting:
			code = 137
		case <-r.killed:
			code = 137
		}
		writeLogLine(run.logPath, "stdout", fmt.Sprintf("fake node: %s ran for %s", run.name, r.agent.fakeRunTime))
		r.mu.Lock()
		run.running, run.exitCode, run.finished, run.reason = false, code, metav1.Now(), "Completed"
		if code != 0 {
			run.reason = "Error"
		}
		r.mu.Unlock()
		close(run.done)
	}()
}

// containerProcAttr makes the container's process the leader of a process group (a signal reaches all it starts)
// in a mount namespace of its own and, on the pod network, a UTS namespace for the pod's hostname.
func containerProcAttr(spec containerSpec) *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWNS)
	if spec.NetNS != "" {
		flags |= syscall.CLONE_NEWUTS
	}
	return &syscall.SysProcAttr{Unshareflags: flags, Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// launch starts the container's process: this binary again, in a new mount namespace and process group,
// which mounts the volumes and then execs the container's command.
func (r *podRun) launch(run *containerRun, spec containerSpec) error {
	if err := ensureDir(filepath.Dir(run.logPath)); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	specFile := run.logPath + ".spec.json"
	if err := writeJSON(specFile, spec); err != nil {
		return err
	}
	cmd := exec.Command(self, runContainerCommand, specFile)
	cmd.SysProcAttr = containerProcAttr(spec)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	logs, err := newLogWriter(run.logPath)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		logs.close()
		return err
	}
	r.mu.Lock()
	run.process, run.running = cmd.Process, true
	r.mu.Unlock()
	var copying sync.WaitGroup
	copying.Add(2)
	go func() { defer copying.Done(); logs.copy(stdout, "stdout") }()
	go func() { defer copying.Done(); logs.copy(stderr, "stderr") }()
	go func() {
		// the container ends when its main process does, as when the init process of its PID namespace exits:
		// whatever else it started is killed with it, and what they wrote is read to its end
		state, err := cmd.Process.Wait()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		drained := make(chan struct{})
		go func() { copying.Wait(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(2 * time.Second):
			// a process that left the group holds the pipes open: the container's output ends here all the same
			stdout.Close()
			stderr.Close()
			<-drained
		}
		// cmd.Wait is not called (it would wait for the pipes): their read ends are closed here
		stdout.Close()
		stderr.Close()
		logs.close()
		code := 128
		if err == nil {
			code = state.ExitCode()
			if status, ok := state.Sys().(syscall.WaitStatus); ok && status.Signaled() {
				code = 128 + int(status.Signal())
			}
		}
		r.mu.Lock()
		run.running, run.exitCode, run.finished = false, code, metav1.Now()
		run.reason = "Completed"
		if code != 0 {
			run.reason = "Error"
		}
		r.mu.Unlock()
		close(run.done)
	}()
	return nil
}
