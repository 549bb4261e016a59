#!/usr/bin/env bash
# Builds Dispatcher's container image with podman from the service's exec jar:
#
#   build-image.sh EXEC_JAR [TAG] [BASE]
#     EXEC_JAR  dispatcher-app/target/dispatcher-app-<version>-exec.jar
#     TAG       default localhost/dispatcher:<version>
#     BASE      the Java 25 runtime image (default docker.io/library/eclipse-temurin:25-jre; local-base.sh makes one
#               without a registry)
#   AOT_CACHE   (environment) a JDK 25 AOT cache trained on this very image's runtime and class path; none by default
#
# The jar is extracted into Spring Boot's layers (java -Djarmode=tools -jar EXEC_JAR extract --layers), the build
# context is the extracted directory plus the Containerfile beside this script; podman's layer cache then rebuilds
# only the layers whose files changed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
jar="$(readlink -f "${1:?usage: build-image.sh EXEC_JAR [TAG] [BASE]}")"
version="$(basename "$jar" | sed -n 's/^dispatcher-app-\(.*\)-exec\.jar$/\1/p')"
version="${version:-unknown}"
tag="${2:-localhost/dispatcher:$version}"
base="${3:-docker.io/library/eclipse-temurin:25-jre}"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

context="$(dirname "$jar")/image-context"
rm -rf "$context" && mkdir -p "$context/aot"
# the tools jar mode names the application jar after the exec jar: call it app.jar, as the Containerfile runs it
cp "$jar" "$context/app.jar"
(cd "$context" && "$java" -Djarmode=tools -jar app.jar extract --layers --destination extracted >/dev/null)
for layer in dependencies snapshot-dependencies application; do
  mkdir -p "$context/extracted/$layer"
  mv "$context/extracted/$layer" "$context/$layer"
done
rm -rf "$context/extracted" "$context/app.jar"
# Identical timestamps for identical files, so a rebuild of unchanged jars hits podman's cache.
find "$context" -exec touch -h -d @0 {} +

cp "$here/Containerfile" "$context/Containerfile"
if [ -n "${AOT_CACHE:-}" ]; then
  cp "$AOT_CACHE" "$context/aot/dispatcher.aot"
  echo 'ENV JDK_JAVA_OPTIONS="-XX:AOTCache=/app/aot/dispatcher.aot"' >> "$context/Containerfile"
fi

revision="$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
podman build --quiet --file "$context/Containerfile" --tag "$tag" \
  --build-arg "BASE=$base" --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  "$context" >/dev/null
echo "$tag"
