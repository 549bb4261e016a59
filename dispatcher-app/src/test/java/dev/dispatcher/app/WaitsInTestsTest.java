package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every test of every module waits one way: Awaitility with a named condition ({@code await("what we wait
 * for").atMost(...).until(...)}, and {@link Invariants#holdFor} for a state that must hold for a while). Scans the
 * sources under each module's {@code src/test/java} for the other ways: sleeping ({@code Thread.sleep}, {@code
 * TimeUnit...sleep}, a blocked {@code Mono.delay}, spinning, parking) and hand-written deadline loops (a deadline
 * taken from a clock, a loop whose condition reads a clock). A measured duration ({@code long started = System.nanoTime()}) is no wait
 * and passes. Comment lines are not read.
 *
 * <p>{@link #ALLOWED} names the few files where a pause is the condition under test, not a wait, each with its
 * reason; an entry whose file no longer pauses fails too, so the list stays short. The Gatling simulations of
 * {@code load-tests} are benchmarks run for a measured time, not tests, and are not scanned.
 */
class WaitsInTestsTest {

    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).resolve("..").normalize();
    private static final Path SELF = Path.of("dispatcher-app/src/test/java/dev/dispatcher/app/WaitsInTestsTest.java");
    private static final Path BENCHMARKS = Path.of("load-tests/src/test/java/dev/dispatcher/load/gatling");

    /** What a test must not do to wait, each with what to do instead. */
    private static final Map<Pattern, String> FORBIDDEN = Map.of(
            Pattern.compile("\\b(Thread|TimeUnit\\.[A-Z]+|[A-Z]{4,})\\.sleep\\s*\\("),
            "a sleep: await(\"what\").until(...), or Invariants.holdFor for a state that must hold",
            Pattern.compile("\\b(Mono|Flux)\\.delay\\(.*\\)\\s*\\.block"),
            "a blocked delay is a sleep: await(\"what\")",
            Pattern.compile("Thread\\.onSpinWait\\(|LockSupport\\.park"),
            "spinning or parking to wait: await(\"what\")",
            Pattern.compile("\\w*[dD]eadline\\w*\\s*=\\s*(System\\.(nanoTime|currentTimeMillis)\\(\\)|Instant\\.now\\(\\))"),
            "a hand-written deadline: await(\"what\").atMost(...)",
            Pattern.compile("\\b(while|for)\\s*\\(.*System\\.(nanoTime|currentTimeMillis)\\(\\)"),
            "a loop on the clock: await(\"what\").atMost(...), or Invariants.holdFor");

    /** Files whose pause is the condition under test, by path from the repository root, with the reason. */
    private static final Map<Path, String> ALLOWED = Map.of(
            Path.of("dispatcher-app/src/test/java/dev/dispatcher/app/api/ApiTestSupport.java"),
            "sendAndHangUp: a client that goes away some milliseconds into its request",
            Path.of("dispatcher-test-kit/src/test/java/dev/dispatcher/testkit/TestKitBlockHoundIntegrationTest.java"),
            "the blocking call BlockHound must report on a non-blocking thread",
            Path.of("load-tests/src/test/java/dev/dispatcher/load/bench/JitWarmUpTest.java"),
            "a warm-up round that takes wall time, which JitWarmUp measures against the compilation clock");

    @Test
    void noTestWaitsButWithANamedAwaitilityCondition() throws IOException {
        List<String> violations = new ArrayList<>();
        List<Path> sources = testSources();
        for (Path source : sources) {
            Path relative = ROOT.relativize(source);
            if (relative.equals(SELF) || relative.startsWith(BENCHMARKS) || ALLOWED.containsKey(relative)) {
                continue;
            }
            violations.addAll(violations(relative.toString(), Files.readString(source)));
        }
        assertThat(sources).as("test sources of several modules scanned from %s", ROOT)
                .anyMatch(p -> p.endsWith("HealthIT.java"))
                .anyMatch(p -> p.toString().contains("dispatcher-test-kit"));
        assertThat(violations).as("waits that are not a named Awaitility condition").isEmpty();
    }

    @Test
    void everyAllowedPauseIsStillThere() throws IOException {
        for (Map.Entry<Path, String> allowed : ALLOWED.entrySet()) {
            Path source = ROOT.resolve(allowed.getKey());
            assertThat(source).as("allowed: %s", allowed.getValue()).exists();
            assertThat(violations(allowed.getKey().toString(), Files.readString(source)))
                    .as("%s is allowed to pause (%s): drop it from the list once it no longer does",
                            allowed.getKey(), allowed.getValue())
                    .isNotEmpty();
        }
    }

    @Test
    void eachForbiddenWaitIsReported() {
        List<String> forbidden = List.of(
                "        Thread.sleep(50);",
                "        TimeUnit.MILLISECONDS.sleep(20);",
                "        SECONDS.sleep(1);",
                "        Mono.delay(Duration.ofMillis(300)).block();",
                "            Thread.onSpinWait();",
                "        long deadline = System.nanoTime() + WAIT.toNanos();",
                "        Instant deadline = Instant.now().plus(timeout);",
                "        while (delivered < n && System.nanoTime() - start < limit) {");
        for (String line : forbidden) {
            assertThat(violations("Sample.java", "class Sample {\n" + line + "\n}\n")).as(line).hasSize(1);
        }
    }

    @Test
    void namedAwaitsMeasuredDurationsAndCommentsPass() {
        String fine = """
                class Sample {
                    void test() {
                        long started = System.nanoTime();
                        await("both replays waiting on the row lock").atMost(WAIT).until(() -> count() >= 2);
                        Duration took = Duration.ofNanos(System.nanoTime() - started);
                        // Thread.sleep(50) was here
                         * the old loop: while (System.nanoTime() < deadline)
                        Mono.delay(Duration.ofSeconds(1)).then(call());
                    }
                }
                """;
        assertThat(violations("Sample.java", fine)).isEmpty();
    }

    private static List<Path> testSources() throws IOException {
        try (Stream<Path> modules = Files.list(ROOT)) {
            return modules.map(module -> module.resolve("src/test/java")).filter(Files::isDirectory)
                    .flatMap(WaitsInTestsTest::javaFiles).sorted().toList();
        }
    }

    private static Stream<Path> javaFiles(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(f -> f.toString().endsWith(".java")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Each line of {@code text} that waits in a forbidden way, as "file:line: code (what to do instead)". */
    static List<String> violations(String file, String text) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String code = lines[i].strip();
            if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) {
                continue;
            }
            for (Map.Entry<Pattern, String> rule : FORBIDDEN.entrySet()) {
                if (rule.getKey().matcher(code).find()) {
                    found.add(file + ":" + (i + 1) + ": " + code + " (" + rule.getValue() + ")");
                    break;
                }
            }
        }
        return found;
    }
}
