#!/usr/bin/env bash
# Makes sure the system tools a command needs are installed; installs the missing ones with
# apt-get when run as root on Debian/Ubuntu, otherwise says what to install.
# Usage: ensure-tools.sh TOOL...   (TOOL: protoc, openssl, setpriv, flock, go, podman, buildah, runc, debootstrap, strip, chromium)
# chromium is Debian's browser, which the dashboard's browser tests drive (playwright-core, no download).
set -euo pipefail
declare -A package=([protoc]=protobuf-compiler [openssl]=openssl [setpriv]=util-linux [flock]=util-linux
  [podman]=podman [buildah]=buildah [runc]=runc [debootstrap]=debootstrap [strip]=binutils [chromium]=chromium)
missing=()
for tool in "$@"; do
  command -v "$tool" >/dev/null 2>&1 && continue
  if [[ $tool == go ]]; then
    echo "flotilla: Go >= 1.26 is needed to build the test clusters' binaries (see https://go.dev/doc/install)," >&2
    echo "flotilla: or set FLOTILLA_BIN_DIR to pre-built binaries (docs/development/test-env.md)." >&2
    [[ -n ${FLOTILLA_BIN_DIR:-} ]] && continue
    exit 1
  fi
  missing+=("${package[$tool]}")
done
((${#missing[@]})) || exit 0
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "flotilla: installing ${missing[*]} with apt-get" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
else
  echo "flotilla: please install: ${missing[*]}" >&2
  exit 1
fi
