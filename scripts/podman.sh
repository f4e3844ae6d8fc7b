#!/usr/bin/env bash
# podman with runc and this machine's hard ulimits, through a containers.conf in a temp dir (the
# default runtime crun cannot start containers on hosts with hybrid cgroups, and podman's default
# ulimits exceed the hard limits there). Nothing global changes. Used by `npm run image` and the
# image test; Usage: podman.sh PODMAN-ARGS...
set -euo pipefail
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
# At most the hard limits (podman's defaults exceed them); nproc above 32768 fails here even
# under a higher hard limit ("error setting rlimit type 6").
nofile=$(ulimit -Hn); nproc=$(ulimit -Hu)
[[ $nofile == unlimited ]] && nofile=1048576
[[ $nproc == unlimited || $nproc -gt 32768 ]] && nproc=32768
cat >"$conf" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
CONF
CONTAINERS_CONF=$conf podman "$@"
