#!/usr/bin/env bash
# `npm run image`: builds the Dockerfile with podman on a machine where no container registry is
# reachable. The bases (Node.js 24 on Debian bookworm) are made locally once: a debootstrap
# minbase rootfs from the Debian mirror apt already uses, plus the pinned Node.js binary of the
# `node` npm package: only the files Node.js runs on, imported as
# localhost/flotilla-runtime-base:<node version>-<revision> (the runtime stage's), and the whole
# rootfs with this machine's npm added as localhost/flotilla-build-base:<node version> (the build
# stage's).
# Tags the image as the charts default to: ghcr.io/flotilla/flotilla:<package.json version>
# (IMAGE overrides the repository; --print-tag prints the tag and builds nothing). Podman runs through scripts/podman.sh (runc, hard ulimits).
set -euo pipefail
cd "$(dirname "$0")/.."
repository=${IMAGE:-ghcr.io/flotilla/flotilla}
version=$(node -p 'require("./package.json").version')
if [[ ${1:-} == --print-tag ]]; then echo "$repository:$version"; exit 0; fi
node_bin=node_modules/node/bin/node
node_version=$("$node_bin" --version)
# The runtime base's tag names its contents' revision: a change to what goes in makes a new one.
base=localhost/flotilla-runtime-base:${node_version#v}-1
build_base=localhost/flotilla-build-base:${node_version#v}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

podman() { bash scripts/podman.sh "$@"; }
# Debian packages the runtime base keeps: the C and C++ runtimes Node.js links, the shell of the
# `flotilla` wrapper, and the OS's identity.
RUNTIME_PACKAGES="libc6 libgcc-s1 libstdc++6 dash base-files"

if ! podman image exists "$base" || ! podman image exists "$build_base"; then
  started=$SECONDS
  # The first Debian mirror in apt's sources (deb822 or one-line format).
  mirror=$(sed -n -e 's/^URIs: *\([^ ]*debian\)\/*$/\1/p' -e 's/^deb \(\[[^]]*\] \)\?\([^ ]*debian\)\/* .*/\2/p' \
    /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | grep -v security | head -n1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  rootfs=$work/rootfs
  echo "flotilla: making $base (debootstrap minbase from $mirror)" >&2
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  # What Node.js never uses: apt's lists and caches, documentation, locales, iconv modules.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/{doc,man,info,locale}/* \
    "$rootfs"/usr/lib/x86_64-linux-gnu/gconv
  # Without its symbol table (15 MB): stack traces of JavaScript are unchanged.
  install -m 755 "$node_bin" "$rootfs/usr/local/bin/node"
  strip --strip-all "$rootfs/usr/local/bin/node"
  import() { tar --numeric-owner -C "$1" -c . | podman import \
    --change 'ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD=["node"]' - "$2" >/dev/null; }
  # The runtime base holds only what Node.js and the `flotilla` wrapper run on (RUNTIME_PACKAGES'
  # files, as dpkg lists them), merged /usr's top-level links, the few files of /etc a process
  # reads, and node: no apt, dpkg, perl or coreutils (the minbase is ~66 MB, this ~12 MB).
  runtime=$work/runtime
  mkdir -p "$runtime"/{tmp,usr/local/bin} && chmod 1777 "$runtime/tmp"
  # Merged /usr's links first, so that the files below land through them.
  for link in bin lib lib64 sbin; do if [[ -L $rootfs/$link ]]; then cp -a "$rootfs/$link" "$runtime/$link"; fi; done
  for pkg in $RUNTIME_PACKAGES; do
    lists=("$rootfs/var/lib/dpkg/info/$pkg.list" "$rootfs/var/lib/dpkg/info/$pkg":*.list)
    found=""
    for list in "${lists[@]}"; do if [[ -f $list ]]; then found=$list; fi; done
    [[ -n $found ]] || { echo "flotilla: the minbase has no package $pkg" >&2; exit 1; }
    # Files and links (their directories come with them), those the clean-up above left.
    while read -r f; do
      if [[ -L $rootfs$f || (-f $rootfs$f && ! -d $rootfs$f) ]]; then echo ".$f"; fi
    done <"$found"
  done | sed -e 's#^\./bin/#./usr/bin/#' -e 's#^\./lib/#./usr/lib/#' -e 's#^\./lib64/#./usr/lib64/#' -e 's#^\./sbin/#./usr/sbin/#' \
    | sort -u >"$work/runtime-files"
  for f in etc/passwd etc/group etc/nsswitch.conf etc/host.conf; do if [[ -e $rootfs/$f ]]; then echo "./$f"; fi; done >>"$work/runtime-files"
  tar -C "$rootfs" --no-recursion -c -T "$work/runtime-files" | tar -C "$runtime" -x
  install -m 755 "$rootfs/usr/local/bin/node" "$runtime/usr/local/bin/node"
  import "$runtime" "$base"
  # The build stage's base has npm too (this machine's, which `npm ci` here already runs).
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  import "$rootfs" "$build_base"
  echo "flotilla: made $base and $build_base in $((SECONDS - started)) s" >&2
fi

secret=()
ca=/etc/ssl/certs/ca-certificates.crt
[[ -s $ca ]] && secret=(--secret "id=npm_ca,src=$ca")
started=$SECONDS
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# The labels are also given on the command line: buildah 1.28 reuses a cached LABEL layer when only
# the build argument it names changed, which left an older commit's revision on the image.
podman build --build-arg "BASE=$base" --build-arg "BUILD_BASE=$build_base" "${secret[@]}" \
  --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  --label "org.opencontainers.image.version=$version" --label "org.opencontainers.image.revision=$revision" \
  -t "$repository:$version" . >&2
size=$(podman image inspect --format '{{.Size}}' "$repository:$version")
echo "flotilla: built $repository:$version in $((SECONDS - started)) s, $((size / 1000000)) MB" >&2
echo "$repository:$version"
