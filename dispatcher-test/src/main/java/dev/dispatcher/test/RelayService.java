package dev.dispatcher.test;

import static org.awaitility.Awaitility.await;

import dev.dispatcher.testkit.JvmProcess;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The service a {@link DispatcherTestRelay} runs: dispatcher-app's exec jar, found on the class path (or named by
 * {@value DispatcherTestRelay#SERVICE_JAR_PROPERTY}), started with {@code java -jar} and awaited until its readiness
 * probe answers {@code UP}: the context has started, so the relay and the inbox consumers run.
 */
final class RelayService {

    /** Where a class-path lookup finds the exec jar: a class that only the exec jar holds under this name. */
    static final String EXEC_JAR_MARKER = "BOOT-INF/classes/dev/dispatcher/app/DispatcherApplication.class";
    /** How much of its output a failure to start shows. */
    private static final int TAIL_LINES = 30;

    private RelayService() {
    }

    /**
     * Starts the service with {@code properties} as its command line ({@code --name=value}) on {@code port}, its
     * output under {@code logPrefix}, and waits until it is ready.
     *
     * @throws IllegalStateException if it exits, or is not ready within {@code startTimeout} (then it is stopped);
     *     the message has the end of its output
     */
    static JvmProcess start(List<String> javaOptions, Map<String, String> properties, int port, Path logPrefix,
            Duration startTimeout) {
        List<String> arguments = new ArrayList<>();
        properties.forEach((name, value) -> arguments.add("--" + name + "=" + value));
        JvmProcess service = JvmProcess.start(javaOptions, JvmProcess.jar(jar()), arguments, logPrefix);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI readiness = URI.create("http://localhost:" + port + "/actuator/health/readiness");
        try {
            await("Dispatcher's relay to be ready (its output: " + service.outputFile() + ")")
                    .atMost(startTimeout)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (!service.isAlive()) {
                            throw new IllegalStateException("Dispatcher's relay exited with status "
                                    + service.exitValue() + "; " + service.tail(TAIL_LINES));
                        }
                        return ready(http, readiness);
                    });
        } catch (ConditionTimeoutException e) {
            service.stop();
            throw new IllegalStateException(e.getMessage() + "; " + service.tail(TAIL_LINES), e);
        }
        return service;
    }

    private static boolean ready(HttpClient http, URI readiness) {
        try {
            return http.send(HttpRequest.newBuilder(readiness).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Dispatcher's relay", e);
        }
    }

    /**
     * The exec jar: the one {@value DispatcherTestRelay#SERVICE_JAR_PROPERTY} names, else the one on the class path.
     */
    static Path jar() {
        String configured = System.getProperty(DispatcherTestRelay.SERVICE_JAR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        URL marker = RelayService.class.getClassLoader().getResource(EXEC_JAR_MARKER);
        String url = marker == null ? "" : marker.toString();
        int separator = url.indexOf("!/");
        if (!url.startsWith("jar:") || separator < 0) {
            throw new IllegalStateException("Dispatcher's service jar is not on the class path: add the test"
                    + " dependency dev.dispatcher:dispatcher-test (it brings dev.dispatcher:dispatcher-app:exec), or"
                    + " name the jar with -D" + DispatcherTestRelay.SERVICE_JAR_PROPERTY + "=<path>; found "
                    + (marker == null ? "nothing" : url));
        }
        try {
            return Path.of(new URI(url.substring("jar:".length(), separator)));
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot read the service jar's location from " + url, e);
        }
    }
}
