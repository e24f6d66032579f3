package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	pod   *corev1.Pod

	mu         sync.Mutex
	containers map[string]*containerRun
	terminated bool
	deleting   chan struct{}
	deleteOnce sync.Once
	killed     chan struct{}
	killOnce   sync.Once
	startTime  metav1.Time
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
}

func newPodRun(a *agent, pod *corev1.Pod) *podRun {
	return &podRun{agent: a, pod: pod.DeepCopy(), containers: map[string]*containerRun{},
		deleting: make(chan struct{}), killed: make(chan struct{}), startTime: metav1.Now()}
}

// terminate starts a graceful stop once the pod is marked for deletion.
func (r *podRun) terminate(pod *corev1.Pod) {
	r.deleteOnce.Do(func() {
		r.mu.Lock()
		r.pod = pod.DeepCopy()
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
	volumes, err := map[string]string{}, error(nil)
	if r.agent.fakeRunTime == 0 {
		volumes, err = r.prepareVolumes(ctx, dir)
	}
	for err != nil {
		r.agent.event(ctx, pod, corev1.EventTypeWarning, "FailedMount", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-r.deleting:
			r.finish(ctx)
			return
		case <-r.killed:
			return
		case <-time.After(2 * time.Second):
		}
		volumes, err = r.prepareVolumes(ctx, dir)
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

// stopOnDelete sends SIGTERM when the pod is deleted and SIGKILL once its grace period is over.
func (r *podRun) stopOnDelete(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-r.killed:
		return
	case <-r.deleting:
	}
	r.signalAll(syscall.SIGTERM)
	grace := int64(30)
	r.mu.Lock()
	if r.pod.DeletionGracePeriodSeconds != nil {
		grace = *r.pod.DeletionGracePeriodSeconds
	}
	r.mu.Unlock()
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
		r.mu.Lock()
		pod := r.pod
		r.mu.Unlock()
		r.agent.finalDelete(ctx, pod)
	default:
	}
}

// runUntilDone runs a container, again after a failure while the restart policy asks for it; it says whether
// the container's last run succeeded.
func (r *podRun) runUntilDone(ctx context.Context, c corev1.Container, volumes map[string]string, dir string,
	initContainer bool) bool {
	policy := r.pod.Spec.RestartPolicy
	backoff := time.Second
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
			r.agent.event(ctx, r.pod, corev1.EventTypeNormal, "Started", "Started container "+c.Name)
			<-run.done
		}
		r.publish(ctx)
		failed := run.exitCode != 0
		restart := policy == corev1.RestartPolicyAlways || (policy == corev1.RestartPolicyOnFailure && failed) ||
			(initContainer && failed && policy != corev1.RestartPolicyNever)
		if !restart || ctx.Err() != nil {
			return !failed
		}
		r.agent.event(ctx, r.pod, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container "+
			c.Name+" in pod "+r.pod.Name)
		select {
		case <-ctx.Done():
			return false
		case <-r.deleting:
			return false
		case <-r.killed:
			return false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
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

	if r.agent.fakeRunTime > 0 {
		r.fakeLaunch(run)
		return run
	}
	spec, err := r.containerSpec(ctx, c, volumes)
	if err == nil {
		err = r.launch(run, spec)
	}
	if err != nil {
		r.mu.Lock()
		run.reason, run.exitCode, run.finished = "StartError", 128, metav1.Now()
		r.mu.Unlock()
		writeLogLine(run.logPath, "stderr", "node-agent: "+err.Error())
		r.agent.event(ctx, r.pod, corev1.EventTypeWarning, "Failed", "Error: "+err.Error())
		close(run.done)
		klog.Warningf("starting %s in %s: %v", c.Name, describe(r.pod), err)
	}
	return run
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS, Setpgid: true,
		Pdeathsig: syscall.SIGKILL}
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
		copying.Wait()
		err := cmd.Wait()
		logs.close()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
			if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
				code = 128 + int(status.Signal())
			}
		} else if err != nil {
			code = 128
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
