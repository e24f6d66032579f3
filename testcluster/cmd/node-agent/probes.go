package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
)

// probeReadiness runs the container's readiness probe as the kubelet's prober does, from the node toward the
// pod's address: after initialDelaySeconds, every periodSeconds, each try bounded by timeoutSeconds; the container
// turns ready after successThreshold successes in a row and unready after failureThreshold failures. It ends with
// the container's run; the pod's status is written on every change.
func (r *podRun) probeReadiness(ctx context.Context, c corev1.Container, run *containerRun, dir string) {
	probe := c.ReadinessProbe
	period := seconds(probe.PeriodSeconds, 10)
	timeout := seconds(probe.TimeoutSeconds, 1)
	success, failure := orDefault(probe.SuccessThreshold, 1), orDefault(probe.FailureThreshold, 3)
	wait := time.Duration(probe.InitialDelaySeconds) * time.Second
	var successes, failures int32
	for {
		select {
		case <-ctx.Done():
			return
		case <-run.done:
			return
		case <-time.After(wait):
		}
		wait = period
		err := r.probeOnce(ctx, c, run, probe.ProbeHandler, timeout, dir)
		r.mu.Lock()
		was := run.ready
		if err == nil {
			successes, failures = successes+1, 0
			run.ready = run.ready || successes >= success
		} else {
			successes, failures = 0, failures+1
			run.ready = run.ready && failures < failure
		}
		changed := was != run.ready
		r.mu.Unlock()
		if err != nil && failures == 1 {
			r.agent.event(ctx, r.pod, corev1.EventTypeWarning, "Unhealthy", "Readiness probe failed: "+err.Error())
		}
		if changed {
			r.publish(ctx)
		}
	}
}

func seconds(value int32, fallback int32) time.Duration {
	return time.Duration(orDefault(value, fallback)) * time.Second
}

// orDefault is a probe field as the API server defaults it: an unset (zero) field takes the default.
func orDefault(value int32, fallback int32) int32 {
	if value <= 0 {
		return fallback
	}
	return value
}

func (r *podRun) probeOnce(ctx context.Context, c corev1.Container, run *containerRun, handler corev1.ProbeHandler,
	timeout time.Duration, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.mu.Lock()
	ip := r.podIP
	r.mu.Unlock()
	switch {
	case handler.TCPSocket != nil:
		host := handler.TCPSocket.Host
		if host == "" {
			host = ip
		}
		port, err := portOf(c, handler.TCPSocket.Port)
		if err != nil {
			return err
		}
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return err
		}
		return conn.Close()
	case handler.HTTPGet != nil:
		get := handler.HTTPGet
		host := get.Host
		if host == "" {
			host = ip
		}
		port, err := portOf(c, get.Port)
		if err != nil {
			return err
		}
		scheme := "http"
		if get.Scheme == corev1.URISchemeHTTPS {
			scheme = "https"
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet,
			scheme+"://"+net.JoinHostPort(host, strconv.Itoa(port))+get.Path, nil)
		if err != nil {
			return err
		}
		for _, h := range get.HTTPHeaders {
			req.Header.Add(h.Name, h.Value)
		}
		// the kubelet does not verify a probed pod's certificate, and keeps no connection between probes
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
			DisableKeepAlives: true}}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode >= 400 {
			return fmt.Errorf("HTTP probe failed with statuscode: %d", resp.StatusCode)
		}
		return nil
	case handler.Exec != nil:
		// the command runs beside the container as it was started: its mounts (its image layer's copy included),
		// user, env and the pod's network
		spec := run.spec
		spec.Argv = handler.Exec.Command
		out, err := r.runBeside(ctx, spec, dir)
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	return fmt.Errorf("the probe names no handler")
}

// runBeside runs a command with a container's spec and waits for it: a probe's exec.
func (r *podRun) runBeside(ctx context.Context, spec containerSpec, dir string) ([]byte, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	file, err := os.CreateTemp(dir, "probe-*.json")
	if err != nil {
		return nil, err
	}
	file.Close()
	defer os.Remove(file.Name())
	if err := writeJSON(file.Name(), spec); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, runContainerCommand, file.Name())
	cmd.SysProcAttr = containerProcAttr(spec)
	// at the timeout the whole group goes, and what it left holding the output is not waited for
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd.CombinedOutput()
}

func portOf(c corev1.Container, port intstr.IntOrString) (int, error) {
	if port.Type == intstr.Int {
		return port.IntValue(), nil
	}
	for _, p := range c.Ports {
		if p.Name == port.StrVal {
			return int(p.ContainerPort), nil
		}
	}
	klog.V(2).Infof("container %s names no port %q", c.Name, port.StrVal)
	return 0, fmt.Errorf("port %q not found in container %s", port.StrVal, c.Name)
}
