package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

type agent struct {
	client  kubernetes.Interface
	nodes   []string
	dir     string
	apiPort string
	// fakeNodes are the nodes whose containers are not run: each "runs" fakeRunTime and succeeds (scale runs).
	fakeNodes   map[string]bool
	fakeRunTime time.Duration
	// network gives pods their own network namespaces and addresses; nil keeps them on the node's network.
	network *podNetwork
	images  imageTable

	mu   sync.Mutex
	pods map[types.UID]*podRun
	// running counts the pods' goroutines, so a stopping agent waits for their networks to be torn down
	running sync.WaitGroup
}

func newAgent(client kubernetes.Interface, nodes []string, dir, apiPort string, fakeNodes map[string]bool,
	fakeRunTime time.Duration) *agent {
	return &agent{client: client, nodes: nodes, dir: dir, apiPort: apiPort, fakeNodes: fakeNodes, fakeRunTime: fakeRunTime,
		pods: map[types.UID]*podRun{}}
}

// runPods watches the pods bound to the agent's nodes until ctx ends: a new one starts, a deleted one stops.
func (a *agent) runPods(ctx context.Context) {
	factory := informers.NewSharedInformerFactoryWithOptions(a.client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
		}))
	informer := factory.Core().V1().Pods().Informer()
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.observe(ctx, obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj any) { a.observe(ctx, obj.(*corev1.Pod)) },
		DeleteFunc: func(obj any) {
			if pod, ok := obj.(*corev1.Pod); ok {
				a.forget(pod.UID)
			} else if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				if pod, ok := tomb.Obj.(*corev1.Pod); ok {
					a.forget(pod.UID)
				}
			}
		},
	})
	if err != nil {
		klog.Fatal(err)
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
}

func (a *agent) observe(ctx context.Context, pod *corev1.Pod) {
	if !isOurNode(a.nodes, pod.Spec.NodeName) {
		return
	}
	a.mu.Lock()
	run, known := a.pods[pod.UID]
	if !known {
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			a.mu.Unlock()
			if pod.DeletionTimestamp != nil {
				a.finalDelete(ctx, pod)
			}
			return
		}
		run = newPodRun(a, pod)
		a.pods[pod.UID] = run
		a.running.Add(1)
		go func() {
			defer a.running.Done()
			run.run(ctx)
		}()
	}
	a.mu.Unlock()
	if pod.DeletionTimestamp != nil {
		run.terminate(pod)
	} else if known {
		run.resync(ctx, pod)
	}
}

func (a *agent) forget(uid types.UID) {
	a.mu.Lock()
	run := a.pods[uid]
	delete(a.pods, uid)
	a.mu.Unlock()
	if run != nil {
		run.kill()
	}
}

// stopAll kills every pod's processes and waits, at most 10 s, for their networks to be torn down.
func (a *agent) stopAll() {
	a.mu.Lock()
	for _, run := range a.pods {
		run.kill()
	}
	a.mu.Unlock()
	done := make(chan struct{})
	go func() { a.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		klog.Warning("pods still stopping after 10 s; down.sh removes what they leave")
	}
}

func (a *agent) lookup(namespace, name string) *podRun {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, run := range a.pods {
		if run.pod.Namespace == namespace && run.pod.Name == name {
			return run
		}
	}
	return nil
}

// finalDelete removes a terminated pod's object once its containers have stopped, as the kubelet does: with
// grace period 0 and the pod's UID as precondition, so a new pod of the same name is never touched.
func (a *agent) finalDelete(ctx context.Context, pod *corev1.Pod) {
	err := a.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64), Preconditions: metav1.NewUIDPreconditions(string(pod.UID))})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
		klog.Warningf("deleting pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
}

// patchStatus writes the pod's whole status as a merge patch of the status subresource.
func (a *agent) patchStatus(ctx context.Context, pod *corev1.Pod, status corev1.PodStatus) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": pod.UID}, "status": status})
	if err != nil {
		return err
	}
	_, err = a.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, body,
		metav1.PatchOptions{}, "status")
	return err
}

func (a *agent) podDir(pod *corev1.Pod) string {
	return filepath.Join(a.dir, "pods", string(pod.UID))
}

// event records what the kubelet would, so `kubectl describe` and the component's events consumer see it.
func (a *agent) event(ctx context.Context, pod *corev1.Pod, kind, reason, message string) {
	a.record(ctx, pod, "", kind, reason, message)
}

// containerEvent is an event about one container: the kubelet's reference names it by its field path.
func (a *agent) containerEvent(ctx context.Context, pod *corev1.Pod, c corev1.Container, kind, reason, message string) {
	a.record(ctx, pod, containerFieldPath(pod, c.Name), kind, reason, message)
}

func containerFieldPath(pod *corev1.Pod, name string) string {
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return "spec.initContainers{" + name + "}"
		}
	}
	return "spec.containers{" + name + "}"
}

func (a *agent) record(ctx context.Context, pod *corev1.Pod, fieldPath, kind, reason, message string) {
	now := metav1.NewTime(time.Now())
	_, err := a.client.CoreV1().Events(pod.Namespace).Create(ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: pod.Name + ".", Namespace: pod.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name,
			UID: pod.UID, APIVersion: "v1", FieldPath: fieldPath},
		Reason: reason, Message: message, Type: kind, Count: 1,
		FirstTimestamp: now, LastTimestamp: now,
		Source: corev1.EventSource{Component: "kubelet", Host: pod.Spec.NodeName},
	}, metav1.CreateOptions{})
	if err != nil && ctx.Err() == nil {
		klog.Warningf("event %s for %s/%s: %v", reason, pod.Namespace, pod.Name, err)
	}
}

func describe(pod *corev1.Pod) string {
	return fmt.Sprintf("%s/%s", pod.Namespace, pod.Name)
}

func ensureDir(path string) error {
	return os.MkdirAll(path, 0o755)
}
