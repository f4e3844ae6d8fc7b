// Oracle: runs Karmada's default native interpreter on the native interpreters' sample cases
// (JSON on stdin, from cases.ts) and prints Karmada's result for each. Built inside a Karmada
// checkout; see README.md. Not part of Flotilla's build.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/features"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/native"
	"github.com/karmada-io/karmada/pkg/util/helper"
)

type item struct {
	ClusterName string          `json:"clusterName"`
	Status      json.RawMessage `json:"status,omitempty"`
	Applied     bool            `json:"applied,omitempty"`
	Health      string          `json:"health,omitempty"`
}

type target struct {
	Name     string `json:"name"`
	Replicas int32  `json:"replicas"`
}

type kase struct {
	Name     string                 `json:"name"`
	Op       string                 `json:"op"`
	Object   json.RawMessage `json:"object"`
	Observed json.RawMessage `json:"observed,omitempty"`
	Replicas int64                  `json:"replicas,omitempty"`
	Items    []item                 `json:"items,omitempty"`
	Targets  []target               `json:"targets,omitempty"`
	UID      string                 `json:"uid,omitempty"`
}

type result struct {
	Name   string      `json:"name"`
	Result interface{} `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
}

func main() {
	_ = features.FeatureGate.Set("ResourceQuotaEstimate=true")
	var cases []kase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	in := native.NewDefaultInterpreter()
	out := []result{}
	for _, c := range cases {
		r := result{Name: c.Name}
		res, err := run(in, c)
		r.Result = res
		if err != nil {
			r.Error = err.Error()
		}
		out = append(out, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}

// object decodes as Kubernetes does: whole numbers as int64, which the interpreters require.
func object(raw json.RawMessage) map[string]interface{} {
	out := map[string]interface{}{}
	if len(raw) > 0 {
		if err := utiljson.Unmarshal(raw, &out); err != nil {
			panic(err)
		}
	}
	return out
}

func run(in *native.DefaultInterpreter, c kase) (interface{}, error) {
	obj := &unstructured.Unstructured{Object: object(c.Object)}
	switch c.Op {
	case "InterpretReplica":
		n, req, err := in.GetReplicas(obj)
		if err != nil {
			return nil, err
		}
		if req != nil && len(req.Namespace) == 0 {
			req.Namespace = obj.GetNamespace()
		}
		return map[string]interface{}{"replica": n, "requires": req}, nil
	case "ReviseReplica":
		return in.ReviseReplica(obj, c.Replicas)
	case "Retain":
		return in.Retain(obj, &unstructured.Unstructured{Object: object(c.Observed)})
	case "AggregateStatus":
		// nil when there are none, as a binding's aggregatedStatus decodes when it has no entries.
		var items []workv1alpha2.AggregatedStatusItem
		for _, i := range c.Items {
			it := workv1alpha2.AggregatedStatusItem{ClusterName: i.ClusterName, Applied: i.Applied, Health: workv1alpha2.ResourceHealth(i.Health)}
			if len(i.Status) > 0 && string(i.Status) != "null" {
				it.Status = &runtime.RawExtension{Raw: i.Status}
			}
			items = append(items, it)
		}
		return in.AggregateStatus(obj, items)
	case "InterpretStatus":
		raw, err := in.ReflectStatus(obj)
		if err != nil || raw == nil {
			return nil, err
		}
		var v interface{}
		err = json.Unmarshal(raw.Raw, &v)
		return v, err
	case "InterpretHealth":
		return in.InterpretHealth(obj)
	case "InterpretDependency":
		return in.GetDependencies(obj)
	case "JobCompletions":
		tcs := []workv1alpha2.TargetCluster{}
		for _, t := range c.Targets {
			tcs = append(tcs, workv1alpha2.TargetCluster{Name: t.Name, Replicas: t.Replicas})
		}
		completions, found, err := unstructured.NestedInt64(obj.Object, "spec", "completions")
		if err != nil || !found {
			return nil, err
		}
		byName := map[string]int32{}
		for _, t := range helper.SpreadReplicasByTargetClusters(int32(completions), tcs, nil, types.UID(c.UID)) {
			byName[t.Name] = t.Replicas
		}
		return byName, nil
	}
	return nil, fmt.Errorf("unknown op %q", c.Op)
}
