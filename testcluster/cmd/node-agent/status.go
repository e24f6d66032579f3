package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// publish writes the pod's status as the kubelet derives it from its containers, and like the kubelet's status
// manager tries again (0.5 s doubling to 10 s) until the API server took it, the pod is gone or the agent stops.
// One write at a time: a status computed earlier never lands after one computed later.
func (r *podRun) publish(ctx context.Context) {
	r.publishing.Lock()
	defer r.publishing.Unlock()
	for delay := 500 * time.Millisecond; ; delay = min(2*delay, 10*time.Second) {
		r.mu.Lock()
		status := r.statusLocked()
		pod := r.pod
		r.mu.Unlock()
		err := r.agent.patchStatus(ctx, pod, status)
		if err == nil {
			r.mu.Lock()
			r.publishedPhase = status.Phase
			r.mu.Unlock()
			return
		}
		if apierrors.IsNotFound(err) || ctx.Err() != nil {
			return
		}
		klog.Warningf("status of %s (again in %s): %v", describe(pod), delay, err)
		select {
		case <-ctx.Done():
			return
		case <-r.killed:
			return
		case <-time.After(delay):
		}
	}
}

// resync writes the status again when the API server's copy says another phase than the one last written, as the
// kubelet's status manager reconciles the API server's pod with its own.
func (r *podRun) resync(ctx context.Context, seen *corev1.Pod) {
	r.mu.Lock()
	drifted := r.publishedPhase != "" && seen.Status.Phase != r.publishedPhase && !r.resyncing
	r.resyncing = r.resyncing || drifted
	r.mu.Unlock()
	if drifted && seen.DeletionTimestamp == nil {
		// one resync at a time: the informer's updates while it runs need no other
		go func() {
			r.publish(ctx)
			r.mu.Lock()
			r.resyncing = false
			r.mu.Unlock()
		}()
	}
}

func (r *podRun) statusLocked() corev1.PodStatus {
	spec := r.pod.Spec
	now := metav1.Now()
	initDone, initFailed := true, false
	var initStatuses []corev1.ContainerStatus
	for _, c := range spec.InitContainers {
		s := r.containerStatus(c, "PodInitializing")
		if s.State.Terminated == nil || s.State.Terminated.ExitCode != 0 {
			initDone = false
		}
		if s.State.Terminated != nil && s.State.Terminated.ExitCode != 0 && spec.RestartPolicy == corev1.RestartPolicyNever {
			initFailed = true
		}
		initStatuses = append(initStatuses, s)
	}
	allRunning, anyRunning, allDone, allSucceeded := true, false, true, true
	var statuses []corev1.ContainerStatus
	waitingReason := "ContainerCreating"
	if len(spec.InitContainers) > 0 && !initDone {
		waitingReason = "PodInitializing"
	}
	for _, c := range spec.Containers {
		s := r.containerStatus(c, waitingReason)
		allRunning = allRunning && s.State.Running != nil && s.Ready
		anyRunning = anyRunning || s.State.Running != nil
		allDone = allDone && s.State.Terminated != nil
		allSucceeded = allSucceeded && s.State.Terminated != nil && s.State.Terminated.ExitCode == 0
		statuses = append(statuses, s)
	}
	phase := corev1.PodPending
	switch {
	case initFailed:
		phase = corev1.PodFailed
	case r.terminated && allSucceeded:
		phase = corev1.PodSucceeded
	case r.terminated && allDone:
		phase = corev1.PodFailed
	case anyRunning || (initDone && len(r.containers) > len(spec.InitContainers)):
		phase = corev1.PodRunning
	}
	ready := allRunning && phase == corev1.PodRunning
	condition := func(kind corev1.PodConditionType, ok bool, reason string) corev1.PodCondition {
		c := corev1.PodCondition{Type: kind, Status: corev1.ConditionFalse, LastTransitionTime: now}
		if ok {
			c.Status = corev1.ConditionTrue
		} else {
			c.Reason = reason
		}
		return c
	}
	notReady := "ContainersNotReady"
	if phase == corev1.PodSucceeded || phase == corev1.PodFailed {
		notReady = "PodCompleted"
	}
	return corev1.PodStatus{
		Phase: phase,
		Conditions: []corev1.PodCondition{
			condition("PodReadyToStartContainers", phase != corev1.PodSucceeded && phase != corev1.PodFailed, ""),
			condition(corev1.PodInitialized, initDone, "ContainersNotInitialized"),
			condition(corev1.ContainersReady, ready, notReady),
			condition(corev1.PodReady, ready, notReady),
		},
		HostIP:                "127.0.0.1",
		HostIPs:               []corev1.HostIP{{IP: "127.0.0.1"}},
		PodIP:                 r.podIP,
		PodIPs:                []corev1.PodIP{{IP: r.podIP}},
		StartTime:             &r.startTime,
		InitContainerStatuses: initStatuses,
		ContainerStatuses:     statuses,
		QOSClass:              r.pod.Status.QOSClass,
	}
}

func (r *podRun) containerStatus(c corev1.Container, waitingReason string) corev1.ContainerStatus {
	s := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "testcluster://" + c.Image,
		Started: new(bool)}
	run := r.containers[c.Name]
	if run == nil {
		s.State.Waiting = &corev1.ContainerStateWaiting{Reason: waitingReason}
		return s
	}
	s.ContainerID = "testcluster://" + run.id
	s.RestartCount = run.restarts
	if run.previous != nil {
		s.LastTerminationState.Terminated = terminated(run.previous)
	}
	switch {
	case run.running:
		s.State.Running = &corev1.ContainerStateRunning{StartedAt: run.started}
		// a fake node probes nothing: its containers are ready while they "run", as kwok's are
		s.Ready, *s.Started = run.ready || c.ReadinessProbe == nil || r.onFakeNode(), true
	case r.backingOff[c.Name]:
		s.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: fmt.Sprintf(
			"back-off restarting failed container=%s pod=%s_%s(%s)", c.Name, r.pod.Name, r.pod.Namespace, r.pod.UID)}
		s.LastTerminationState.Terminated = terminated(run)
	case run.reason != "":
		s.State.Terminated = terminated(run)
	default:
		s.State.Waiting = &corev1.ContainerStateWaiting{Reason: waitingReason}
	}
	return s
}

func terminated(run *containerRun) *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{ExitCode: int32(run.exitCode), Reason: run.reason,
		StartedAt: run.started, FinishedAt: run.finished, ContainerID: "testcluster://" + run.id}
}
