#!/usr/bin/env bash
# Builds the pinned cluster binaries (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, kwok, helm, etcd) from public Go modules into a cache outside the repo, once.
# Prints the binary directory on stdout as its last line; progress goes to stderr.
#
# Environment:
#   FLOTILLA_BIN_DIR    use pre-built binaries from this directory instead of building
#   FLOTILLA_CACHE_DIR  cache root (default: $XDG_CACHE_HOME/flotilla or ~/.cache/flotilla)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="$here/tools"
binaries=(kube-apiserver kube-controller-manager kube-scheduler kubectl kwok helm etcd)

K8S_VERSION=v1.36.3
K8S_MINOR=36
HELM_VERSION=v3.21.4
KWOK_VERSION=v0.8.0

log() { printf 'test/env: %s\n' "$*" >&2; }

check_dir() {
  local dir=$1 missing=()
  for b in "${binaries[@]}"; do [[ -x "$dir/$b" ]] || missing+=("$b"); done
  [[ -d "$dir/kwok-stages" ]] || missing+=("kwok-stages/")
  if ((${#missing[@]})); then
    log "$dir lacks: ${missing[*]}"
    return 1
  fi
}

if [[ -n "${FLOTILLA_BIN_DIR:-}" ]]; then
  check_dir "$FLOTILLA_BIN_DIR" || { log "FLOTILLA_BIN_DIR is set but incomplete"; exit 1; }
  echo "$FLOTILLA_BIN_DIR"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "Go is not installed. Building the test binaries needs Go >= 1.26 (see https://go.dev/doc/install;"
  log "Debian 12's golang package is too old), or set FLOTILLA_BIN_DIR to a directory holding"
  log "pre-built ${binaries[*]} and kwok-stages/."
  exit 1
fi
goversion=$(go env GOVERSION)
case "$goversion" in
  go1.2[6-9]* | go1.[3-9][0-9]*) ;;
  *) log "Go $goversion is too old: the pinned Kubernetes $K8S_VERSION needs Go >= 1.26"; exit 1 ;;
esac

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

# The cache key is everything that shapes the output; bump RECIPE when the build steps change.
RECIPE=1
cache="${FLOTILLA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/flotilla}"
stamp=$(cat <(echo "$RECIPE $goversion $version_flags ${binaries[*]} ${kwok_stages[*]}") "$tools/k8s/go.mod" \
  "$tools/k8s/go.sum" "$tools/etcd/go.mod" "$tools/etcd/go.sum" | sha256sum | cut -c1-16)
dir="$cache/bin/$stamp"

if [[ -f "$dir/.complete" ]]; then
  echo "$dir"
  exit 0
fi

mkdir -p "$cache/bin"
exec 9>"$cache/build.lock"
if ! flock -n 9; then
  log "another build holds $cache/build.lock; waiting for it"
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
log "building cluster binaries into $dir (first time only: tens of minutes on 2 cores)"

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

(
  cd "$tools/k8s"
  go build -v -trimpath -ldflags "-s -w $version_flags" -o "$tmp/" \
    k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler \
    k8s.io/kubernetes/cmd/kubectl \
    sigs.k8s.io/kwok/cmd/kwok \
    helm.sh/helm/v3/cmd/helm 2>&1
) | progress "kubernetes, kwok, helm"
(
  cd "$tools/etcd"
  go build -v -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3 2>&1
) | progress "etcd"

# kwok needs Stage objects; use the same ones kwokctl ships, from the pinned kwok module.
kwok_src=$(cd "$tools/k8s" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
mkdir -p "$tmp/kwok-stages"
for stage in "${kwok_stages[@]}"; do
  cp "$kwok_src/kustomize/stage/$stage.yaml" "$tmp/kwok-stages/$(basename "$stage").yaml"
done
chmod -R u+w "$tmp/kwok-stages"

check_dir "$tmp"
touch "$tmp/.complete"
rm -rf "$dir"
mv "$tmp" "$dir"
log "built in $(($(date +%s) - start)) s; cache size $(du -sh "$dir" | cut -f1)"
echo "$dir"
