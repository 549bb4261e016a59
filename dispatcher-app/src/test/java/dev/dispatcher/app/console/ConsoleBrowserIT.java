package dev.dispatcher.app.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.OpsTestSupport;
import dev.dispatcher.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.support.ui.Select;
import org.springframework.http.MediaType;

/**
 * The operator console in a real browser (headless Chromium), against the running service with an outbox of more
 * than {@value #HISTORY} messages: sign-in, live overview numbers, finding a dead letter and replaying it after the
 * fix, a stale replay answered 409 with the current row, bulk replay, the inbox consumers and their dead letters
 * (raw keys, reasons, replay one and in bulk, a stale replay's 409), and a VIEWER's read-only console. Each page is
 * photographed under {@code target/console-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserIT extends OpsTestSupport {

    static final int HISTORY = 100_000;
    private static final String FIRST_SEQ = "#messages-table tbody tr:first-child td:first-child";

    private Browser browser;

    @BeforeAll
    void startBrowserAndSeedAHistory() {
        browser = Browser.start();
        // delivered history, as a busy outbox holds within its retention; the console must never load it whole
        execute("INSERT INTO outbox_message (topic, message_key, event_type, payload, status, attempts, version,"
                + " delivered_at, created_at) SELECT 'ops.history', 'history-' || (g % 64), 'History',"
                + " convert_to('{\"n\":' || g || '}', 'UTF8'), 'DELIVERED', 1, 1, now(), now() - interval '1 hour'"
                + " FROM generate_series(1, " + HISTORY + ") g");
    }

    @AfterAll
    void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    private String console(String route) {
        return baseUrl() + "/console/#" + route;
    }

    @Test
    @Order(1)
    void signingInChecksTheCredentialsAndTheOperatorRole() {
        browser.open(baseUrl() + "/console");
        browser.find("#login-form");
        browser.screenshot("01-sign-in");

        signIn(OPERATOR, "wrong");
        browser.awaitText("#login-message", t -> t.contains("401"), "a refused password");
        signIn(PRODUCER, password(PRODUCER));
        browser.awaitText("#login-message", t -> t.contains("403") && t.contains("OPERATOR"), "a producer refused");
        signIn(OPERATOR, password(OPERATOR));
        browser.awaitText("#relay-state", t -> t.equals("RUNNING") || t.equals("PAUSED"), "the overview");

        assertThat(browser.text("#who")).isEqualTo(OPERATOR);
        assertThat(browser.driver().manage().getCookies()).as("no session cookie: credentials go with each call")
                .isEmpty();
        assertThat((String) ((JavascriptExecutor) browser.driver()).executeScript(
                "return sessionStorage.getItem('dispatcher.console.authorization')")).startsWith("Basic ");
    }

    @Test
    @Order(2)
    void theMessagesPageShowsOnePageAtATimeOfAHundredThousand() {
        assertThat(count("SELECT count(*) FROM outbox_message")).isGreaterThanOrEqualTo(HISTORY);
        long start = System.nanoTime();
        browser.open(console("/messages"));
        browser.find("#messages-table");
        long firstPageMs = (System.nanoTime() - start) / 1_000_000;
        List<String> firstSeqs = seqs();
        assertThat(firstSeqs).hasSize(50);

        start = System.nanoTime();
        browser.click("#page-next");
        browser.awaitText(FIRST_SEQ, t -> !t.equals(firstSeqs.getFirst()), "the next page");
        long nextPageMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(Long.parseLong(seqs().getFirst())).isGreaterThan(Long.parseLong(firstSeqs.getLast()));
        System.out.printf("DIAG console messages page with %d+ rows: first page %d ms, next page %d ms%n", HISTORY,
                firstPageMs, nextPageMs);
        assertThat(firstPageMs).as("first page within 5 s").isLessThan(5_000);
        assertThat(nextPageMs).as("next page within 5 s").isLessThan(5_000);
        browser.screenshot("02-messages");
    }

    @Test
    @Order(3)
    void theOverviewFollowsTheBacklogAsMessagesArePublished() {
        browser.open(console("/"));
        browser.awaitText("#relay-state", "RUNNING"::equals, "a running relay");
        long publishedBefore = number(browser.text("#published-total"));
        long backlogBefore = number(browser.text("#backlog-total"));
        try {
            browser.click("#relay-toggle");
            browser.awaitText("#relay-state", "PAUSED"::equals, "a paused relay");
            assertThat(browser.text("#banner-paused")).contains("PAUSED");

            StringBuilder batch = new StringBuilder("[");
            for (int i = 0; i < 25; i++) {
                batch.append(i == 0 ? "" : ",").append("{\"topic\":\"").append(PLAIN_TOPIC)
                        .append("\",\"key\":\"overview-").append(i % 5).append("\",\"type\":\"Overview\",\"payload\":")
                        .append(i).append('}');
            }
            as(PRODUCER).post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(batch.append(']').toString()).exchange().expectStatus().isAccepted();
            browser.awaitText("#backlog-total", t -> number(t) >= backlogBefore + 25,
                    "a backlog with the 25 new messages");
            browser.screenshot("03-overview-paused");

            browser.click("#relay-toggle");
            browser.awaitText("#relay-state", "RUNNING"::equals, "the relay resumed");
        } finally {
            as(OPERATOR).post().uri("/v1/relay/resume").contentType(MediaType.APPLICATION_JSON).exchange()
                    .expectStatus().isOk();
        }
        browser.awaitText("#published-total", t -> number(t) >= publishedBefore + 25, "25 more published");
        browser.awaitText("#backlog-total", t -> number(t) <= backlogBefore, "the backlog drained");
        // "all is well" unless another test of this shared service left a dead letter behind
        browser.find(count("SELECT count(*) FROM outbox_message WHERE status = 'DEAD_LETTERED'") == 0
                ? "#banner-ok" : "#banner-dead");
        browser.until(d -> !d.findElements(By.cssSelector("#chart-rate polyline")).isEmpty(), "a rate chart");
        browser.screenshot("04-overview");
    }

    @Test
    @Order(4)
    void aDeadLetterIsFoundAndReplayedAfterTheFixAndThenDelivered() {
        UUID id = UUID.randomUUID();
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + SMALL_TOPIC + "\",\"key\":\"big\",\"type\":\"Big\","
                        + "\"payload\":{\"blob\":\"" + "x".repeat(4 * SMALL_TOPIC_MAX_BYTES) + "\"}}")
                .exchange().expectStatus().isAccepted();
        await().atMost(Duration.ofSeconds(30)).until(() -> "DEAD_LETTERED".equals(
                text("SELECT status FROM outbox_message WHERE id = ?", id)));

        browser.open(console("/messages"));
        new Select(browser.find("#filter-status")).selectByValue("DEAD_LETTERED");
        browser.type("#filter-topic", SMALL_TOPIC);
        browser.click("#filter-apply");
        browser.find("tr[data-id='" + id + "'] a").click();
        browser.awaitText("#message-status", "DEAD_LETTERED"::equals, "the dead letter's page");
        assertThat(browser.text("#message-error")).contains("RecordTooLarge");
        browser.click("#payload-bytes");
        assertThat(browser.text("#payload")).startsWith("00000000  7b 22 62 6c 6f 62 22");
        browser.click("#payload-json");
        browser.screenshot("05-message-dead-lettered");

        allowLargeRecords();
        browser.click("#replay");
        assertThat(browser.text("#action-ok")).contains("PENDING");
        // the page shows a message as loaded: refreshed after each look until it shows the delivery
        await("the replayed message delivered").atMost(Duration.ofSeconds(60)).pollInSameThread()
                .pollInterval(Duration.ofMillis(500)).ignoreException(StaleElementReferenceException.class)
                .until(() -> {
                    if (browser.present("#message-status") && browser.text("#message-status").equals("DELIVERED")) {
                        return true;
                    }
                    browser.driver().navigate().refresh();
                    return false;
                });
        assertThat(browser.text("#audit")).contains("replay").contains(OPERATOR).contains("DEAD_LETTERED");
        browser.screenshot("06-message-delivered");
        assertThat(TestServers.kafka().consume(SMALL_TOPIC, 1, Duration.ofSeconds(10))).anyMatch(r ->
                id.toString().equals(new String(r.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8)));
    }

    @Test
    @Order(5)
    void aStaleReplayShowsThe409AndTheCurrentRowInsteadOfOverwritingIt() {
        UUID id = seedDeadLetter(PLAIN_TOPIC, "stale", "poison pill");
        browser.open(console("/messages/" + id));
        browser.awaitText("#message-status", "DEAD_LETTERED"::equals, "the dead letter's page");
        assertThat(browser.text("#message-version")).startsWith("0");

        // another operator replays it first
        as(OTHER_OPERATOR).post().uri("/v1/messages/" + id + "/replay").header("If-Match", "\"0\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk();
        browser.click("#replay");
        assertThat(browser.text("#conflict")).contains("409").contains("nothing was changed");
        assertThat(browser.text("#conflict-detail")).contains("version");
        assertThat(Long.parseLong(browser.text("#conflict-version"))).isPositive();
        assertThat(browser.text("#conflict-status")).isIn("PENDING", "DELIVERED");
        browser.screenshot("07-stale-replay-409");
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND action = 'replay'",
                id.toString())).as("only the other operator's replay happened").isEqualTo(1);
        assertThat(text("SELECT actor FROM dispatch_audit WHERE message_id = ?", id.toString()))
                .isEqualTo(OTHER_OPERATOR);

        browser.click("#conflict-reload");
        browser.awaitText("#message-version", t -> !t.startsWith("0"), "the current version shown");
    }

    @Test
    @Order(6)
    void deadLettersAreReplayedInBulkAndAStaleListRowGetsThe409() {
        String error = "schema registry timeout " + UUID.randomUUID();
        List<UUID> matching = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            matching.add(seedDeadLetter(PLAIN_TOPIC, "bulk", error));
        }
        UUID other = seedDeadLetter(PLAIN_TOPIC, "bulk", "record too large");

        browser.open(console("/dead-letters?topic=" + PLAIN_TOPIC));
        browser.find("tr[data-id='" + other + "']");
        browser.type("#bulk-error", error);
        browser.click("#bulk-replay");
        assertThat(browser.text("#bulk-ok")).contains("Replayed 3 message");
        for (UUID id : matching) {
            assertThat(text("SELECT status FROM outbox_message WHERE id = ?", id)).isNotEqualTo("DEAD_LETTERED");
        }
        assertThat(text("SELECT status FROM outbox_message WHERE id = ?", other)).isEqualTo("DEAD_LETTERED");
        browser.until(d -> d.findElements(By.cssSelector("tr[data-id='" + matching.getFirst() + "']")).isEmpty(),
                "the list without the replayed rows");
        browser.screenshot("08-dead-letters");

        as(OTHER_OPERATOR).post().uri("/v1/messages/" + other + "/replay").header("If-Match", "\"0\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk();
        browser.find("button.replay-one[data-id='" + other + "']").click();
        assertThat(browser.text("#conflict")).contains("409");
    }

    @Test
    @Order(7)
    void theInboxPageShowsEachConsumerWithItsBacklogAndDeadLetters() {
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"topic\":\"" + TRACED_TOPIC + "\",\"type\":\"Poisoned\",\"payload\":{\"kind\":\"poison\"}}")
                .exchange().expectStatus().isAccepted();
        await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM inbox_message WHERE"
                + " consumer_name = ? AND status = 'DEAD_LETTERED'", CONSUMER) >= 1);

        browser.open(console("/inbox"));
        String row = "tr[data-consumer='" + CONSUMER + "']";
        browser.awaitText(row + " .dead-count", t -> number(t) >= 1, "the consumer's dead letters counted");
        assertThat(browser.text(row)).contains(TRACED_TOPIC).contains("webhook");
        assertThat(browser.text(row + " .ordering")).isEqualTo("none");
        assertThat(browser.text(row + " .dead-letter-topic")).isEqualTo("off");
        String keyed = "tr[data-consumer='" + KEYED_CONSUMER + "']";
        assertThat(browser.text(keyed + " .ordering")).as("the options of each consumer").isEqualTo("per-key");
        assertThat(browser.text(keyed + " .dead-letter-topic")).isEqualTo("{topic}.DLT");
        browser.find(row + " a").click();
        assertThat(browser.text("#inbox-dead-letters-table")).contains("webhook answered 422");
        browser.screenshot("09-inbox");
    }

    @Test
    @Order(8)
    void inboxDeadLettersShowTheirReasonAndRawKeyAndAreReplayedOneByOneAndInBulk() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String avro = seedInboxDeadLetter(run + "-avro", null, new byte[] {0x00, 0x00, 0x00, 0x00, 0x05, 0x02, 'k'},
                "{\"fixed\":true}", "header 'x-tenant' is not UTF-8 text without NUL (jsonb cannot hold it)");
        String unstored = seedInboxDeadLetter(run + "-big", "order-9", null, null,
                "value of 2000000 bytes is over the consumer's limit of 1048576 bytes (max-payload-size)");
        String stale = seedInboxDeadLetter(run + "-stale", "order-10", null, "{}", "webhook answered 503");
        String bulkError = "schema registry down " + run;
        List<String> bulk = List.of(seedInboxDeadLetter(run + "-bulk1", "b", null, "{}", bulkError),
                seedInboxDeadLetter(run + "-bulk2", "b", null, "{}", bulkError));

        browser.open(console("/inbox?consumer=" + CONSUMER));
        browser.driver().navigate().refresh(); // the previous test may have left this very route open
        String avroRow = "tr[data-message-id='" + avro + "']";
        browser.awaitText(avroRow, t -> t.contains("bytes 00 00 00 00 05 02 6b"), "the raw key of a binary key");
        assertThat(browser.text(avroRow)).contains("header 'x-tenant' is not UTF-8").contains(TRACED_TOPIC + "/0@");
        assertThat(browser.text("tr[data-message-id='" + unstored + "']")).contains("not stored")
                .contains("not replayable").contains("over the consumer's limit");
        assertThat(browser.present("button.inbox-replay-one[data-message-id='" + unstored + "']")).isFalse();
        browser.screenshot("10-inbox-dead-letters");

        browser.find("button.inbox-replay-one[data-message-id='" + avro + "']").click();
        browser.awaitText("#inbox-replay-ok", t -> t.contains("PENDING"), "the replay confirmed");
        await().atMost(Duration.ofSeconds(30)).until(() -> "COMPLETED".equals(
                text("SELECT status FROM inbox_message WHERE message_id = ?", avro)));
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND queue = 'inbox'"
                + " AND actor = ?", avro, OPERATOR)).isEqualTo(1);

        // another operator replays a listed row first: this page's version is stale
        as(OTHER_OPERATOR).post().uri("/v1/inbox/" + CONSUMER + "/messages/" + stale + "/replay")
                .header("If-Match", "\"0\"").contentType(MediaType.APPLICATION_JSON).exchange().expectStatus().isOk();
        browser.find("button.inbox-replay-one[data-message-id='" + stale + "']").click();
        assertThat(browser.text("#conflict")).contains("409").contains("nothing was changed");
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ?", stale)).isEqualTo(1);

        browser.type("#inbox-bulk-error", bulkError);
        browser.click("#inbox-bulk-replay");
        assertThat(browser.text("#inbox-bulk-ok")).contains("Replayed 2 message");
        for (String id : bulk) {
            assertThat(text("SELECT status FROM inbox_message WHERE message_id = ?", id)).isNotEqualTo("DEAD_LETTERED");
        }
        assertThat(text("SELECT status FROM inbox_message WHERE message_id = ?", unstored)).isEqualTo("DEAD_LETTERED");
        browser.screenshot("11-inbox-replayed");
    }

    @Test
    @Order(9)
    void aViewerSeesEveryPageButNoButtonThatChangesAnything() {
        UUID id = seedDeadLetter(PLAIN_TOPIC, "viewer", "seen by a viewer");
        browser.open(console("/"));
        browser.click("#sign-out");
        signIn(VIEWER, password(VIEWER));
        browser.awaitText("#relay-state", t -> t.equals("RUNNING") || t.equals("PAUSED"), "the overview");
        assertThat(browser.text("#who")).isEqualTo(VIEWER + " (read-only)");
        assertThat(browser.driver().findElement(By.cssSelector("#relay-toggle")).isDisplayed())
                .as("no pause button").isFalse();
        browser.screenshot("12-viewer-overview");

        browser.open(console("/messages/" + id));
        browser.awaitText("#message-status", "DEAD_LETTERED"::equals, "the dead letter's page");
        assertThat(browser.text("#read-only")).contains("OPERATOR");
        assertThat(browser.present("#replay")).isFalse();

        browser.open(console("/dead-letters?topic=" + PLAIN_TOPIC));
        browser.find("tr[data-id='" + id + "']");
        assertThat(browser.present("#bulk-form")).isFalse();
        assertThat(browser.present("button.replay-one")).isFalse();
        browser.find("#bulk-topic");
        browser.screenshot("13-viewer-dead-letters");
        assertThat(text("SELECT status FROM outbox_message WHERE id = ?", id)).isEqualTo("DEAD_LETTERED");
    }

    private void signIn(String user, String password) {
        browser.click("#login-mode-basic");
        browser.type("#login-user", user);
        browser.type("#login-password", password);
        browser.click("#login-submit");
    }

    private List<String> seqs() {
        return browser.driver().findElements(By.cssSelector("#messages-table tbody tr td:first-child")).stream()
                .map(e -> e.getText()).toList();
    }

    private static UUID seedDeadLetter(String topic, String key, String error) {
        UUID id = UUID.randomUUID();
        execute("INSERT INTO outbox_message (id, topic, message_key, event_type, payload, status, attempts,"
                + " last_error, dead_lettered_at) VALUES (?, ?, ?, 'Seeded', convert_to('{\"seeded\":true}', 'UTF8'),"
                + " 'DEAD_LETTERED', 3, ?, now())", id, topic, key, error);
        return id;
    }

    private static long number(String text) {
        String digits = text.replace(",", "").trim();
        return digits.matches("\\d+") ? Long.parseLong(digits) : -1;
    }
}
