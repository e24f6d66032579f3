package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// logWriter keeps a container's output in the CRI log format the kubelet reads back: one line per output
// line, "<RFC 3339 nano time> <stream> F <line>".
type logWriter struct {
	mu   sync.Mutex
	file *os.File
}

func newLogWriter(path string) (*logWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &logWriter{file: f}, nil
}

func (w *logWriter) copy(from io.Reader, stream string) {
	reader := bufio.NewReaderSize(from, 64*1024)
	for {
		line, err := reader.ReadString('\n')
		if line != "" {
			w.mu.Lock()
			fmt.Fprintf(w.file, "%s %s F %s\n", time.Now().UTC().Format(time.RFC3339Nano), stream,
				strings.TrimSuffix(line, "\n"))
			w.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (w *logWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.file.Close()
}

func writeLogLine(path, stream, line string) {
	if err := ensureDir(filepath.Dir(path)); err != nil {
		return
	}
	if w, err := newLogWriter(path); err == nil {
		w.copy(strings.NewReader(line+"\n"), stream)
		w.close()
	}
}

// serveKubeletAPI serves /containerLogs over TLS to the API server alone: the client must present a
// certificate of the cluster's CA issued to the API server's kubelet client.
func serveKubeletAPI(ctx context.Context, a *agent, port int, pki string) error {
	caPEM, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "loopback-serving.crt"), filepath.Join(pki, "loopback-serving.key"))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", a.containerLogs)
	server := &http.Server{
		Addr:              net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if len(req.TLS.PeerCertificates) == 0 || req.TLS.PeerCertificates[0].Subject.CommonName != "kube-apiserver-kubelet-client" {
				http.Error(w, "Forbidden", http.StatusForbidden)
				return
			}
			mux.ServeHTTP(w, req)
		}),
	}
	go func() {
		<-ctx.Done()
		server.Close()
	}()
	err = server.ListenAndServeTLS("", "")
	if err == http.ErrServerClosed {
		return nil
	}
	return err
}

// containerLogs answers as the kubelet does: follow, previous, timestamps, tailLines, sinceSeconds, sinceTime
// and limitBytes.
func (a *agent) containerLogs(w http.ResponseWriter, req *http.Request) {
	run := a.lookup(req.PathValue("namespace"), req.PathValue("pod"))
	if run == nil {
		http.Error(w, "pod not found", http.StatusNotFound)
		return
	}
	q := req.URL.Query()
	name, pod := req.PathValue("container"), req.PathValue("pod")
	previous := q.Get("previous") == "true"
	run.mu.Lock()
	container := run.containers[name]
	waiting := run.statusLocked()
	if container != nil && previous {
		container = container.previous
	}
	run.mu.Unlock()
	if container == nil {
		// the kubelet's words (validateContainerLogStatus), which the API server passes on
		message := fmt.Sprintf("previous terminated container %q in pod %q not found", name, pod)
		if !previous {
			message = fmt.Sprintf("container %q in pod %q is waiting to start: %s", name, pod,
				waitingReason(waiting, name))
		}
		// as go-restful writes the kubelet's error: the text alone, no newline after it
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, message)
		return
	}
	timestamps := q.Get("timestamps") == "true"
	follow := q.Get("follow") == "true"
	var since time.Time
	if s := q.Get("sinceSeconds"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			since = time.Now().Add(-time.Duration(n) * time.Second)
		}
	} else if s := q.Get("sinceTime"); s != "" {
		since, _ = time.Parse(time.RFC3339, s)
	}
	limit := int64(-1)
	if s := q.Get("limitBytes"); s != "" {
		limit, _ = strconv.ParseInt(s, 10, 64)
	}
	tail := -1
	if s := q.Get("tailLines"); s != "" {
		tail, _ = strconv.Atoi(s)
	}
	w.Header().Set("Content-Type", "text/plain")
	out := &limitedWriter{w: w, left: limit}
	flusher, _ := w.(http.Flusher)

	file, err := os.Open(container.logPath)
	if err != nil {
		return
	}
	defer file.Close()
	reader := bufio.NewReader(file)
	emit := func(line string) bool {
		stamp, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		_, rest, _ = strings.Cut(rest, " ")
		_, content, _ := strings.Cut(rest, " ")
		if !since.IsZero() {
			if t, err := time.Parse(time.RFC3339Nano, stamp); err == nil && t.Before(since) {
				return true
			}
		}
		text := content + "\n"
		if timestamps {
			text = stamp + " " + text
		}
		return out.write(text)
	}
	var lines []string
	for {
		line, err := reader.ReadString('\n')
		if err != nil {
			break
		}
		if tail >= 0 {
			lines = append(lines, line)
			if len(lines) > tail {
				lines = lines[1:]
			}
		} else if !emit(line) {
			return
		}
	}
	for _, line := range lines {
		if !emit(line) {
			return
		}
	}
	if flusher != nil {
		flusher.Flush()
	}
	if !follow {
		return
	}
	pending := ""
	for {
		chunk, err := reader.ReadString('\n')
		pending += chunk
		if err == nil {
			if !emit(pending) {
				return
			}
			pending = ""
			if flusher != nil {
				flusher.Flush()
			}
			continue
		}
		select {
		case <-req.Context().Done():
			return
		case <-container.done:
			// Drain what the container wrote before it stopped, then end the stream as the kubelet does.
			rest, _ := io.ReadAll(reader)
			for _, line := range strings.SplitAfter(pending+string(rest), "\n") {
				if strings.HasSuffix(line, "\n") && !emit(line) {
					return
				}
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitingReason is why the named container waits, as the pod's status says it.
func waitingReason(status corev1.PodStatus, name string) string {
	for _, s := range append(append([]corev1.ContainerStatus{}, status.InitContainerStatuses...), status.ContainerStatuses...) {
		if s.Name == name && s.State.Waiting != nil {
			return s.State.Waiting.Reason
		}
	}
	return "ContainerCreating"
}

type limitedWriter struct {
	w    io.Writer
	left int64
}

func (l *limitedWriter) write(s string) bool {
	if l.left == 0 {
		return false
	}
	if l.left > 0 && int64(len(s)) > l.left {
		s = s[:l.left]
	}
	n, err := io.WriteString(l.w, s)
	if l.left > 0 {
		l.left -= int64(n)
	}
	return err == nil && l.left != 0
}
