#!/usr/bin/env bash
# Makes a Java 25 runtime base image for Dispatcher without a container registry, for machines that reach none (the
# build's tests): a minimal Debian root filesystem from Debian's package mirror (mmdebstrap, only libc, libgcc, zlib
# and /etc basics; no shell, no package manager) plus a runtime linked from the local JDK with jlink, imported with
# `podman import` as TAG. Both parts are cached in CACHE_DIR and the import is skipped when TAG already holds them,
# so a warm run takes a second or two.
#
#   local-base.sh [TAG] [CACHE_DIR]     (defaults: localhost/dispatcher-base:25, ~/.cache/dispatcher-image)
#   JAVA_HOME names the JDK to link (25 or newer); DEBIAN_MIRROR the mirror (default: deb.debian.org).
set -euo pipefail

tag="${1:-localhost/dispatcher-base:25}"
cache="${2:-${HOME}/.cache/dispatcher-image}"
jdk="${JAVA_HOME:?JAVA_HOME must name a JDK 25}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
# java.se and the JDK modules the service uses at run time: Netty and Kafka's sun.misc.Unsafe (jdk.unsupported),
# Micrometer's process and JVM metrics (jdk.management), DNS lookups of Kafka's clients (jdk.naming.dns), EC TLS
# suites (jdk.crypto.ec), zip file systems (jdk.zipfs) and charsets beyond java.base's (jdk.charsets).
modules=java.se,jdk.unsupported,jdk.management,jdk.naming.dns,jdk.crypto.ec,jdk.zipfs,jdk.charsets,jdk.net

mkdir -p "$cache"
rootfs="$cache/debian-$suite-rootfs.tar"
if [ ! -s "$rootfs" ]; then
  # extract: unpack the packages and their dependencies, run no maintainer script (so no shell is needed); the hooks
  # add what those scripts would have: /etc/passwd and /etc/group, a world-writable /tmp (Netty unpacks its native
  # transport there) and the user the image runs as.
  mmdebstrap --variant=extract --include=libc6,libgcc-s1,zlib1g,base-files,base-passwd,netbase,tzdata \
    --customize-hook='cp "$1/usr/share/base-passwd/passwd.master" "$1/etc/passwd"' \
    --customize-hook='cp "$1/usr/share/base-passwd/group.master" "$1/etc/group"' \
    --customize-hook='echo "dispatcher:x:10001:0:Dispatcher:/tmp:/usr/sbin/nologin" >> "$1/etc/passwd"' \
    --customize-hook='mkdir -p "$1/tmp" && chmod 1777 "$1/tmp"' \
    "$suite" "$cache/rootfs-part.tar" "$mirror"
  mv "$cache/rootfs-part.tar" "$rootfs"
fi

jdk_release="$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$jdk/release")"
runtime="$cache/jre-$jdk_release"
if [ ! -x "$runtime/bin/java" ]; then
  rm -rf "$runtime.part"
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
    --compress=zip-6 --output "$runtime.part"
  mv "$runtime.part" "$runtime"
fi

# The image's identity: the root filesystem's and the runtime's; an image already tagged with it is reused.
identity="$(sha256sum "$rootfs" | cut -c1-16)-$jdk_release"
if [ "$(podman image inspect --format '{{ index .Labels "dev.dispatcher.base" }}' "$tag" 2>/dev/null)" = "$identity" ]; then
  echo "base image $tag is up to date ($identity)"
  exit 0
fi

layer="$cache/base-layer.tar"
rm -rf "$cache/layer" && mkdir -p "$cache/layer/opt"
cp -a "$runtime" "$cache/layer/opt/java"
cp "$rootfs" "$layer"
tar -rf "$layer" --owner=0 --group=0 -C "$cache/layer" ./opt/java
podman import \
  --change 'ENV PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV JAVA_HOME=/opt/java' \
  --change "LABEL dev.dispatcher.base=$identity" \
  "$layer" "$tag" >/dev/null
rm -rf "$cache/layer" "$layer"
echo "base image $tag imported ($identity)"
