package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchLog;
import dev.dispatcher.load.bench.ServiceProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The service's container image for {@code blackbox-image}: one named by {@code --image}, or built by the run as
 * dispatcher-image's tests build it (docs/deployment.md): {@code local-base.sh} makes the Java 25 base from Debian's
 * mirror and this JDK ({@code jlink}; cached, so a warm run takes a second), {@code build-image.sh} the image from the
 * exec jar on it. The scripts are found in {@code dispatcher-image/src/main/container} beside this module, or where
 * {@code -Ddispatcher.image.container-dir} says.
 *
 * @param tag the image's tag
 * @param bytes its uncompressed size
 * @param buildSeconds what the build took, null when the image was given
 */
record ContainerImage(String tag, long bytes, Double buildSeconds) {

    static final String BASE_TAG = "localhost/dispatcher-base:25";

    /** {@code tag}, which must exist in podman's store. */
    static ContainerImage given(String tag) throws IOException, InterruptedException {
        return new ContainerImage(tag, size(tag), null);
    }

    /** Builds {@code tag} from the exec jar on the local base; its output goes to {@code image-build.log}. */
    static ContainerImage build(String tag) throws IOException, InterruptedException {
        Path scripts = containerDir();
        Path log = BenchLog.serviceLog("image-build");
        String javaHome = System.getProperty("java.home");
        String cache = System.getProperty("dispatcher.image.cache-dir",
                System.getProperty("user.home") + "/.cache/dispatcher-image");
        long started = System.nanoTime();
        run(log, javaHome, scripts.resolve("local-base.sh").toString(), BASE_TAG, cache);
        run(log, javaHome, scripts.resolve("build-image.sh").toString(),
                ServiceProcess.defaultJar().toAbsolutePath().toString(), tag, BASE_TAG);
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "image: %s built on %s in %.1f s (log %s)%n", tag, BASE_TAG, seconds, log);
        return new ContainerImage(tag, size(tag), seconds);
    }

    /** {@code podman image inspect}'s size of {@code tag}. */
    static long size(String tag) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("podman", "image", "inspect", "--format", "{{.Size}}", tag)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("no image " + tag + " in podman's store (build one with ./mvnw -B -pl"
                    + " dispatcher-image -am package -Pimage -DskipTests, or leave --image out): " + out);
        }
        return Long.parseLong(out);
    }

    private static Path containerDir() {
        String configured = System.getProperty("dispatcher.image.container-dir");
        List<Path> candidates = configured != null && !configured.isBlank() ? List.of(Path.of(configured))
                : List.of(Path.of("dispatcher-image/src/main/container"),
                        Path.of("../dispatcher-image/src/main/container"));
        for (Path dir : candidates) {
            if (Files.isRegularFile(dir.resolve("build-image.sh"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no dispatcher-image/src/main/container/build-image.sh beside load-tests:"
                + " pass -Ddispatcher.image.container-dir=... or --image <tag>");
    }

    private static void run(Path log, String javaHome, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(command));
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("JAVA_HOME", javaHome);
        Process p = builder.start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", line) + " did not end within 10 minutes; see " + log);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", line) + " failed with " + p.exitValue() + "; see " + log);
        }
    }
}
