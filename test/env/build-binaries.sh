#!/usr/bin/env bash
# Builds pinned binaries from public Go modules into a cache outside the repo, once, in groups:
#   build-binaries.sh [cluster]  kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
#                                kwok, helm, etcd
#   build-binaries.sh dns        external-dns, coredns with the plugins test/env uses (only tests
#                                that run DNS need them)
#   build-binaries.sh metrics    metrics-server, and kwok's resource-usage CRDs and its Metric
#                                for /metrics/resource (only fleets started with metrics need them)
#   build-binaries.sh karmada    karmada-aggregated-apiserver, -controller-manager, -scheduler,
#                                -webhook, -agent, and karmada-crds/ (its CRDs and webhook
#                                configurations, from the module); only Karmada tests need them
# Each group has its own cache key, directory and lock, so building one never rebuilds the other.
# Prints the group's binary directory on stdout as its last line; progress goes to stderr.
#
# Environment:
#   FLOTILLA_BIN_DIR      use pre-built cluster binaries from this directory instead of building
#   FLOTILLA_DNS_BIN_DIR  the same for the dns group
#   FLOTILLA_METRICS_BIN_DIR  the same for the metrics group
#   FLOTILLA_KARMADA_BIN_DIR  the same for the karmada group
#   FLOTILLA_CACHE_DIR    cache root (default: $XDG_CACHE_HOME/flotilla or ~/.cache/flotilla)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="$here/tools"
group=${1:-cluster}
case "$group" in
  cluster)
    binaries=(kube-apiserver kube-controller-manager kube-scheduler kubectl kwok helm etcd)
    prebuilt_var=FLOTILLA_BIN_DIR ;;
  dns)
    binaries=(external-dns coredns)
    prebuilt_var=FLOTILLA_DNS_BIN_DIR ;;
  metrics)
    binaries=(metrics-server)
    prebuilt_var=FLOTILLA_METRICS_BIN_DIR ;;
  karmada)
    binaries=(karmada-aggregated-apiserver karmada-controller-manager karmada-scheduler karmada-webhook
      karmada-agent)
    prebuilt_var=FLOTILLA_KARMADA_BIN_DIR ;;
  *) printf 'test/env: unknown binary group %q (cluster, dns, metrics or karmada)\n' "$group" >&2; exit 2 ;;
esac

# ExternalDNS v0.21.0 and later ignore --crd-source-apiversion/--crd-source-kind (they watch only
# externaldns.k8s.io DNSEndpoints: kubernetes-sigs/external-dns#6414); Flotilla's DNSEndpoint is
# multiclusterdns.flotilla.dev, so v0.20.0 it is.
EXTERNAL_DNS_VERSION=v0.20.0
K8S_VERSION=v1.36.3
K8S_MINOR=36
HELM_VERSION=v3.21.4
KWOK_VERSION=v0.8.0
METRICS_SERVER_VERSION=v0.9.0
KARMADA_VERSION=v1.18.0

log() { printf 'test/env: %s\n' "$*" >&2; }

check_dir() {
  local dir=$1 missing=()
  for b in "${binaries[@]}"; do [[ -x "$dir/$b" ]] || missing+=("$b"); done
  [[ $group != cluster || -d "$dir/kwok-stages" ]] || missing+=("kwok-stages/")
  [[ $group != metrics || -d "$dir/kwok-metrics" ]] || missing+=("kwok-metrics/")
  [[ $group != karmada || -d "$dir/karmada-crds" ]] || missing+=("karmada-crds/")
  if ((${#missing[@]})); then
    log "$dir lacks: ${missing[*]}"
    return 1
  fi
}

extra_dir() {
  case "$group" in
    cluster) echo " and kwok-stages/" ;;
    metrics) echo " and kwok-metrics/" ;;
    karmada) echo " and karmada-crds/" ;;
  esac
}

if [[ -n "${!prebuilt_var:-}" ]]; then
  check_dir "${!prebuilt_var}" || { log "$prebuilt_var is set but incomplete"; exit 1; }
  echo "${!prebuilt_var}"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "Go is not installed. Building the test binaries needs Go >= 1.26 (see https://go.dev/doc/install;"
  log "Debian 12's golang package is too old), or set $prebuilt_var to a directory holding"
  log "pre-built ${binaries[*]}$(extra_dir)."
  exit 1
fi
goversion=$(go env GOVERSION)
case "$goversion" in
  go1.2[6-9]* | go1.[3-9][0-9]*) ;;
  *) log "Go $goversion is too old: the pinned Kubernetes $K8S_VERSION needs Go >= 1.26"; exit 1 ;;
esac

cache="${FLOTILLA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/flotilla}"

# go build -v names each package as it compiles; count them so a person sees it move.
progress() {
  local what=$1 n=0
  while IFS= read -r line; do
    case "$line" in
      *" "* | "#"*) printf '%s\n' "$line" >&2 ;;
      *) n=$((n + 1)); ((n % 100 == 0)) && log "$what: $n packages compiled ($(($(date +%s) - start)) s)" ;;
    esac
  done
  log "$what: done, $n packages ($(($(date +%s) - start)) s)"
}

# Copies files of the pinned kwok module's kustomize/ (the module the cluster group builds kwok
# from) into DIR, flat: copy_from_kwok DIR PATH...
copy_from_kwok() {
  local dir=$1 kwok_src file
  shift
  # Downloaded first: the metrics group may build before (or beside) the cluster group, which
  # would otherwise have brought the module into the module cache.
  kwok_src=$(cd "$tools/k8s" && go mod download sigs.k8s.io/kwok && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  [[ -n $kwok_src ]] || { log "the kwok module's directory is unknown (go list -m sigs.k8s.io/kwok)"; return 1; }
  mkdir -p "$dir"
  for file in "$@"; do cp "$kwok_src/kustomize/$file" "$dir/$(basename "$file")"; done
  chmod -R u+w "$dir"
}

# Each group defines: stamp (the cache key: everything that shapes the output), lock, what (for
# messages) and build_into DIR.
if [[ $group == cluster ]]; then
  version_flags=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    version_flags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$K8S_MINOR"
    version_flags+=" -X $pkg.gitTreeState=clean"
  done
  version_flags+=" -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  version_flags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    version_flags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$K8S_MINOR"
  done
  version_flags+=" -X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION"
  version_flags+=" -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=$K8S_VERSION"

  kwok_stages=(node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease
    pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete)

  # Bump RECIPE when the build steps change.
  RECIPE=1
  stamp=$(cat <(echo "$RECIPE $goversion $version_flags ${binaries[*]} ${kwok_stages[*]}") "$tools/k8s/go.mod" \
    "$tools/k8s/go.sum" "$tools/etcd/go.mod" "$tools/etcd/go.sum" | sha256sum | cut -c1-16)
  lock="$cache/build.lock"
  what="cluster binaries"

  build_into() {
    local out=$1
    (
      cd "$tools/k8s"
      go build -v -trimpath -ldflags "-s -w $version_flags" -o "$out/" \
        k8s.io/kubernetes/cmd/kube-apiserver \
        k8s.io/kubernetes/cmd/kube-controller-manager \
        k8s.io/kubernetes/cmd/kube-scheduler \
        k8s.io/kubernetes/cmd/kubectl \
        sigs.k8s.io/kwok/cmd/kwok \
        helm.sh/helm/v3/cmd/helm 2>&1
    ) | progress "kubernetes, kwok, helm"
    (
      cd "$tools/etcd"
      go build -v -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3 2>&1
    ) | progress "etcd"

    # kwok needs Stage objects; use the same ones kwokctl ships, from the pinned kwok module.
    local stage files=()
    for stage in "${kwok_stages[@]}"; do files+=("stage/$stage.yaml"); done
    copy_from_kwok "$out/kwok-stages" "${files[@]}"
  }
elif [[ $group == metrics ]]; then
  # metrics-server has its own module: its k8s.io/* v0.36.2 and Prometheus requirements would
  # otherwise move the cluster module's versions, and with them the cluster binaries' cache key.
  # kwok's files come from the kwok module the cluster group builds, so they match its binary.
  metrics_flags="-X k8s.io/client-go/pkg/version.gitVersion=$METRICS_SERVER_VERSION"
  metrics_flags+=" -X k8s.io/client-go/pkg/version.gitTreeState=clean"
  kwok_metrics=(metrics/resource/metrics-resource.yaml crd/bases/kwok.x-k8s.io_resourceusages.yaml
    crd/bases/kwok.x-k8s.io_clusterresourceusages.yaml)
  RECIPE_METRICS=1
  stamp=$(cat <(echo "metrics $RECIPE_METRICS $goversion $metrics_flags ${binaries[*]} ${kwok_metrics[*]}") \
    "$tools/metrics-server/go.mod" "$tools/metrics-server/go.sum" \
    <(grep -F 'sigs.k8s.io/kwok ' "$tools/k8s/go.mod") | sha256sum | cut -c1-16)
  lock="$cache/build-metrics.lock"
  what="metrics binaries"

  build_into() {
    local out=$1
    (
      cd "$tools/metrics-server"
      go build -v -trimpath -ldflags "-s -w $metrics_flags" -o "$out/metrics-server" \
        sigs.k8s.io/metrics-server/cmd/metrics-server 2>&1
    ) | progress "metrics-server"
    copy_from_kwok "$out/kwok-metrics" "${kwok_metrics[@]}"
  }
elif [[ $group == karmada ]]; then
  # Karmada has its own module: its k8s.io/* v0.35 requirements would otherwise move the cluster
  # module's versions. Its go.mod has no replace lines; sum.golang.org does not know v1.18.0 here,
  # so the wrapper's go.sum (committed) is what verifies it.
  karmada_flags="-X github.com/karmada-io/karmada/pkg/version.gitVersion=$KARMADA_VERSION"
  karmada_flags+=" -X github.com/karmada-io/karmada/pkg/version.gitTreeState=clean"
  RECIPE_KARMADA=1
  stamp=$(cat <(echo "karmada $RECIPE_KARMADA $goversion $karmada_flags ${binaries[*]}") \
    "$tools/karmada/go.mod" "$tools/karmada/go.sum" | sha256sum | cut -c1-16)
  lock="$cache/build-karmada.lock"
  what="Karmada binaries"

  build_into() {
    local out=$1 src cmd
    # Low priority: a cold Karmada build takes tens of minutes, and the machine is shared.
    (
      cd "$tools/karmada"
      nice -n 19 go build -v -trimpath -ldflags "-s -w $karmada_flags" -o "$out/" \
        github.com/karmada-io/karmada/cmd/aggregated-apiserver \
        github.com/karmada-io/karmada/cmd/controller-manager \
        github.com/karmada-io/karmada/cmd/scheduler \
        github.com/karmada-io/karmada/cmd/webhook \
        github.com/karmada-io/karmada/cmd/agent 2>&1
    ) | progress "karmada"
    for cmd in aggregated-apiserver controller-manager scheduler webhook agent; do
      mv "$out/$cmd" "$out/karmada-$cmd"
    done
    # Karmada's CRDs and webhook configurations, from the module the binaries were built from.
    src=$(cd "$tools/karmada" && go list -m -f '{{.Dir}}' github.com/karmada-io/karmada)
    mkdir -p "$out/karmada-crds"
    cp -r "$src/charts/karmada/_crds/bases" "$out/karmada-crds/"
    cp "$src/artifacts/deploy/webhook-configuration.yaml" "$out/karmada-crds/"
    chmod -R u+w "$out/karmada-crds"
  }
else
  dns_flags="-X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=$EXTERNAL_DNS_VERSION"
  RECIPE_DNS=1
  stamp=$(cat <(echo "dns $RECIPE_DNS $goversion $dns_flags ${binaries[*]}") \
    "$tools/external-dns/go.mod" "$tools/external-dns/go.sum" \
    "$tools/coredns/go.mod" "$tools/coredns/go.sum" "$tools/coredns/main.go" | sha256sum | cut -c1-16)
  lock="$cache/build-dns.lock"
  what="DNS binaries"

  build_into() {
    local out=$1
    (
      cd "$tools/external-dns"
      go build -v -trimpath -ldflags "-s -w $dns_flags" -o "$out/external-dns" sigs.k8s.io/external-dns 2>&1
    ) | progress "external-dns"
    (
      cd "$tools/coredns"
      # Our main (tools/coredns/main.go): CoreDNS with only the plugins the Corefile uses.
      go build -v -trimpath -ldflags "-s -w" -o "$out/coredns" . 2>&1
    ) | progress "coredns"
  }
fi
dir="$cache/bin/$stamp"

if [[ -f "$dir/.complete" ]]; then
  echo "$dir"
  exit 0
fi

mkdir -p "$cache/bin"
exec 9>"$lock"
if ! flock -n 9; then
  log "another build holds $lock; waiting for it"
  flock 9
fi
if [[ -f "$dir/.complete" ]]; then
  echo "$dir"
  exit 0
fi

tmp="$dir.partial"
rm -rf "$tmp"
mkdir -p "$tmp"
start=$(date +%s)
export CGO_ENABLED=0 GOWORK=off GOTOOLCHAIN=local GOFLAGS=-mod=readonly
log "building $what into $dir (first time only: minutes to tens of minutes on 2 cores)"
build_into "$tmp"

check_dir "$tmp"
touch "$tmp/.complete"
rm -rf "$dir"
mv "$tmp" "$dir"
log "built in $(($(date +%s) - start)) s; cache size $(du -sh "$dir" | cut -f1)"
echo "$dir"
