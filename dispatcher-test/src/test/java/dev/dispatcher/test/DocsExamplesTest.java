package dev.dispatcher.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/client.md's examples of this module are the code of tests that run: every line a test marks as an example
 * (between {@code // --8<-- [start:example]} and {@code // --8<-- [end:example]}) is in the guide, in the same order
 * (the guide may add lines around them: a class declaration, closing braces).
 */
class DocsExamplesTest {

    static final Path GUIDE = Path.of("../docs/client.md");
    static final Path TESTS = Path.of("src/test/java/dev/dispatcher/test");
    static final String START = "// --8<-- [start:example]";
    static final String END = "// --8<-- [end:example]";

    @Test
    void theGuidesExamplesAreTheTestsCode() throws IOException {
        List<String> guide = Files.readAllLines(GUIDE).stream().map(String::strip).toList();
        int examples = 0;
        for (String test : List.of("JdbcWriterExampleIT.java", "StarterExampleIT.java")) {
            List<String> example = example(TESTS.resolve(test));
            assertThat(example).as("the example in %s", test).hasSizeGreaterThan(5);
            int at = 0;
            for (String line : example) {
                int found = guide.subList(at, guide.size()).indexOf(line);
                assertThat(found).as("%s's line '%s' in %s, after line %d", test, line, GUIDE, at).isNotNegative();
                at += found + 1;
            }
            examples++;
        }
        assertThat(examples).isEqualTo(2);
    }

    /** The non-blank lines between the markers, stripped. */
    private static List<String> example(Path test) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean inside = false;
        for (String line : Files.readAllLines(test)) {
            String stripped = line.strip();
            if (stripped.equals(START)) {
                inside = true;
            } else if (stripped.equals(END)) {
                inside = false;
            } else if (inside && !stripped.isEmpty()) {
                lines.add(stripped);
            }
        }
        return lines;
    }
}
