#!/usr/bin/env bash
# Builds the control-plane binaries that host/capsule/k8sroost's
# integration tests start — etcd and kube-apiserver (envtest starts
# them), kube-controller-manager (its garbage collector, started by the
# test that needs it) — from the Go module proxy, into a cache directory
# outside the tree, and prints that directory: point KUBEBUILDER_ASSETS at
# it. Binaries already in the cache are reused, so a second run is
# instant.
#
#   KUBEBUILDER_ASSETS=$(scripts/envtest-assets.sh) go test ./host/capsule/k8sroost/
#
# envtest cannot download its binaries here, and neither can be built with
# `go install module@version`: k8s.io/kubernetes and etcd's server module
# both carry replace directives (to their staging/ trees and sibling
# modules) that `go install` refuses. So each is built from a small wrapper
# module of our own whose replaces point every k8s.io/<staging> module at
# its published release instead. The builds are niced: on 2 cores shared
# with other work, etcd took a minute, kube-apiserver about 20 minutes and
# kube-controller-manager 6 more; about 2.5 GB of memory at the peak.
# ENVTEST_EXTRA names more commands of k8s.io/kubernetes/cmd to build
# (kube-scheduler).
#
# Environment: PLANC_ENVTEST_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/planc/envtest), KUBE_VERSION (1.37.2),
# ETCD_VERSION (3.6.16), NICE (15).
set -euo pipefail

kube=${KUBE_VERSION:-1.37.2}
etcd=${ETCD_VERSION:-3.6.16}
staging=0.${kube#1.}
cache=${PLANC_ENVTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/planc/envtest}/k8s-$kube-etcd-$etcd
nice=${NICE:-15}
mkdir -p "$cache"

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export GOFLAGS=-mod=mod GOWORK=off CGO_ENABLED=0

build_etcd() {
	[ -x "$cache/etcd" ] && return
	local m=$work/etcd
	mkdir -p "$m"
	(
		cd "$m"
		printf 'module planc.local/envtest-etcd\n\ngo 1.24\n' >go.mod
		# The server module's main package is the module's root.
		go mod edit -require=go.etcd.io/etcd/server/v3@v$etcd
		nice -n "$nice" go build -trimpath -o "$cache/etcd.tmp" go.etcd.io/etcd/server/v3
	) >&2
	mv "$cache/etcd.tmp" "$cache/etcd"
}

build_kube() { # build_kube CMD...
	local missing=()
	for c in "$@"; do [ -x "$cache/$c" ] || missing+=("$c"); done
	[ ${#missing[@]} -eq 0 ] && return
	local m=$work/kube
	mkdir -p "$m"
	(
		cd "$m"
		printf 'module planc.local/envtest-kube\n\ngo 1.24\n' >go.mod
		go mod edit -require=k8s.io/kubernetes@v$kube
		# Every replace of k8s.io/kubernetes's own go.mod points at its
		# staging tree; ours points each at the published release.
		gomod=$(go mod download -json "k8s.io/kubernetes@v$kube" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
		for mod in $(sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*#\1#p' "$gomod"); do
			go mod edit -replace="$mod=$mod@v$staging"
		done
		for c in "${missing[@]}"; do
			nice -n "$nice" go build -trimpath -o "$cache/$c.tmp" "k8s.io/kubernetes/cmd/$c"
			mv "$cache/$c.tmp" "$cache/$c"
		done
	) >&2
}

build_etcd
build_kube kube-apiserver kube-controller-manager ${ENVTEST_EXTRA:-}
echo "$cache"
