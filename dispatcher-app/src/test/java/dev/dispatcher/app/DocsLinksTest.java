package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The repository's documentation stands on its own: every relative link of the README and of {@code docs/} opens a
 * file of the repository (and, for a link to a heading of a Markdown page, that heading), and no source or document
 * cites a file outside the repository.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern OUTSIDE = Pattern.compile("DESIGN\\.md|\\.\\./shared/|STYLE\\.md");

    @Test
    void everyRelativeLinkOpensAFileOfTheRepository() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            Matcher link = LINK.matcher(Files.readString(page));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + " -> " + target);
                } else if (hash >= 0 && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + " -> " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("links that open nothing").isEmpty();
    }

    @Test
    void nothingCitesAFileOutsideTheRepository() throws IOException {
        List<String> citing = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(Files::isRegularFile)
                    .filter(path -> !ROOT.relativize(path).toString().matches("(.*/)?(target|node_modules|\\.git|\\.mvn)/.*"))
                    .filter(path -> path.toString().matches(".*\\.(java|md|yml|yaml|xml|sh|sql|properties)$"))
                    .filter(path -> !path.getFileName().toString().equals("DocsLinksTest.java"))
                    .forEach(path -> {
                        if (OUTSIDE.matcher(read(path)).find()) {
                            citing.add(ROOT.relativize(path).toString());
                        }
                    });
        }
        assertThat(citing).as("files citing DESIGN.md, STYLE.md or ../shared (cite docs/contract.md instead)").isEmpty();
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        pages.add(ROOT.resolve("load-tests/reference/README.md"));
        return pages;
    }

    /** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static List<String> anchors(Path page) {
        return read(page).lines()
                .filter(line -> line.startsWith("#"))
                .map(line -> line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'))
                .toList();
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
