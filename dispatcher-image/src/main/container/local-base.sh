#!/usr/bin/env bash
# Makes a Java 25 runtime base image for Dispatcher without a container registry, for machines that reach none (the
# build's tests): a minimal Debian root filesystem from Debian's package mirror (mmdebstrap, only libc, libgcc, zlib
# and /etc basics; no shell, no package manager) plus a runtime linked from the local JDK with jlink, imported with
# `podman import` as TAG. Both parts are cached in CACHE_DIR and the import is skipped when TAG already holds them,
# so a warm run takes well under a second.
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
# suites (jdk.crypto.ec), zip file systems (jdk.zipfs), charsets beyond java.base's (jdk.charsets), socket options
# (jdk.net).
modules=java.se,jdk.unsupported,jdk.management,jdk.naming.dns,jdk.crypto.ec,jdk.zipfs,jdk.charsets,jdk.net

mkdir -p "$cache"
# named after this script's own content, so a changed recipe makes a new root filesystem
recipe="$(sha256sum "$0" | cut -c1-12)"
rootfs="$cache/debian-$suite-rootfs-$recipe.tar"
if [ ! -s "$rootfs" ]; then
  rm -f "$cache"/debian-"$suite"-rootfs-*.tar
  # extract: unpack the packages and their dependencies, run no maintainer script (so no shell is needed)
  mmdebstrap --variant=extract --include=libc6,libgcc-s1,zlib1g,base-files,base-passwd,netbase,tzdata \
    "$suite" "$cache/rootfs-part.tar" "$mirror"
  mv "$cache/rootfs-part.tar" "$rootfs"
fi

jdk_release="$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$jdk/release")"
runtime="$cache/jre-$jdk_release-$recipe"
if [ ! -x "$runtime/bin/java" ]; then
  rm -rf "$cache"/jre-*
  # --generate-cds-archive: the JDK's default class data sharing archive, which a jlink'd runtime lacks otherwise
  # (the JDK's own classes then load and verify at every start)
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
    --compress=zip-6 --generate-cds-archive --output "$runtime.part"
  mv "$runtime.part" "$runtime"
fi

# The image's identity: the recipe's, the root filesystem's and the runtime's; an image already tagged with it is
# reused.
identity="$recipe-$(sha256sum "$rootfs" | cut -c1-16)-$jdk_release"
if [ "$(podman image inspect --format '{{ index .Labels "dev.dispatcher.base" }}' "$tag" 2>/dev/null)" = "$identity" ]; then
  echo "base image $tag is up to date ($identity)"
  exit 0
fi

# The layer: the root filesystem; what the skipped maintainer scripts and libc-bin would have added (/etc/passwd and
# /etc/group with the user the image runs as, a world-writable /tmp, where Netty unpacks its native transport, and
# /etc/nsswitch.conf: without it glibc asks DNS before /etc/hosts, and a lookup of localhost waits for a DNS server);
# and the runtime in /opt/java.
layer="$cache/layer"
rm -rf "$layer" && mkdir -p "$layer"
tar -xf "$rootfs" -C "$layer"
cp "$layer/usr/share/base-passwd/passwd.master" "$layer/etc/passwd"
echo "dispatcher:x:10001:0:Dispatcher:/tmp:/usr/sbin/nologin" >> "$layer/etc/passwd"
cp "$layer/usr/share/base-passwd/group.master" "$layer/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$layer/etc/nsswitch.conf"
mkdir -p "$layer/tmp" "$layer/opt" && chmod 1777 "$layer/tmp"
cp -a "$runtime" "$layer/opt/java"
tar -cf "$layer.tar" --owner=0 --group=0 -C "$layer" .
podman import \
  --change 'ENV PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV JAVA_HOME=/opt/java' \
  --change "LABEL dev.dispatcher.base=$identity" \
  "$layer.tar" "$tag" >/dev/null
rm -rf "$layer" "$layer.tar"
echo "base image $tag imported ($identity)"
