package dev.dispatcher.app.console;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium from Debian's {@code chromium} and {@code chromium-driver} packages, driven by Selenium with
 * the driver and browser given by path, so Selenium Manager never looks for (or downloads) either. Paths default to
 * {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver} ({@code -Ddispatcher.test.chromium=...},
 * {@code -Ddispatcher.test.chromedriver=...} override them); where they are missing the tests are skipped with a
 * message saying how to install them ({@code .ci/run} does).
 */
final class Browser implements AutoCloseable {

    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final ChromeDriver driver;
    private final Path profile;

    private Browser(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Starts the browser, or skips the calling tests when Chromium or its driver is not installed. */
    static Browser start() {
        Path chromium = Path.of(System.getProperty("dispatcher.test.chromium", "/usr/bin/chromium"));
        Path chromedriver = Path.of(System.getProperty("dispatcher.test.chromedriver", "/usr/bin/chromedriver"));
        Assumptions.assumeTrue(Files.isExecutable(chromium) && Files.isExecutable(chromedriver),
                "browser tests skipped: " + chromium + " or " + chromedriver + " is missing; install Debian's"
                        + " packages with `apt-get install -y chromium chromium-driver` (.ci/run does so)");
        try {
            Path profile = Files.createTempDirectory("dispatcher-chromium");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(chromium.toFile());
            options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1400,1000", "--user-data-dir=" + profile);
            LoggingPreferences logs = new LoggingPreferences();
            logs.enable(LogType.BROWSER, Level.ALL);
            options.setCapability("goog:loggingPrefs", logs);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(chromedriver.toFile())
                    .usingAnyFreePort()
                    .build();
            Files.createDirectories(SCREENSHOTS);
            return new Browser(new ChromeDriver(service, options), profile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    WebDriver driver() {
        return driver;
    }

    void open(String url) {
        driver.get(url);
    }

    WebElement find(String css) {
        return until(d -> {
            var found = d.findElements(By.cssSelector(css));
            return found.isEmpty() || !found.getFirst().isDisplayed() ? null : found.getFirst();
        }, "element " + css);
    }

    boolean present(String css) {
        return !driver.findElements(By.cssSelector(css)).isEmpty();
    }

    String text(String css) {
        return find(css).getText();
    }

    /** Waits until {@code css} is shown and its text satisfies {@code condition}; returns the text. */
    String awaitText(String css, Predicate<String> condition, String what) {
        return until(d -> {
            var found = d.findElements(By.cssSelector(css));
            if (found.isEmpty()) {
                return null;
            }
            String text = found.getFirst().getText();
            return condition.test(text) ? text : null;
        }, what);
    }

    <T> T until(Function<WebDriver, T> condition, String what) {
        try {
            return new WebDriverWait(driver, WAIT, Duration.ofMillis(100)).withMessage(what)
                    .ignoring(StaleElementReferenceException.class).until(condition::apply);
        } catch (RuntimeException e) {
            screenshot("failure-" + what.replaceAll("[^A-Za-z0-9]+", "-"));
            for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
                System.out.println("BROWSER " + entry);
            }
            throw e;
        }
    }

    void type(String css, String text) {
        WebElement element = find(css);
        element.clear();
        element.sendKeys(text);
    }

    void click(String css) {
        find(css).click();
    }

    /** Saves a PNG of the page under {@code target/console-screenshots/}. */
    Path screenshot(String name) {
        Path file = SCREENSHOTS.resolve(name + ".png");
        try {
            File shot = driver.getScreenshotAs(OutputType.FILE);
            Files.copy(shot.toPath(), file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
        try (var files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary profile left behind is harmless
        }
    }
}
