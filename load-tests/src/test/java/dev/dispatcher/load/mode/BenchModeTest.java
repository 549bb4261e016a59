package dev.dispatcher.load.mode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.app.config.RelayProperties;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchModeTest {

    @Test
    void theReadmesDrainCommandTakesTheDocumentedDefaults() {
        Drain drain = (Drain) BenchMode.parse("drain", "--n", "100000", "--keys", "64", "--ordering", "per-key");

        assertThat(drain.backlog()).isEqualTo(new Backlog(100_000, new Keys.Spread(64), 256));
        assertThat(drain.ordering()).isEqualTo(Ordering.PER_KEY);
        assertThat(drain.warmup()).as("rows of one warm-up round").isEqualTo(Drain.DEFAULT_WARMUP).isEqualTo(20_000);
        assertThat(drain.tuning()).isEqualTo(new RelayTuning(RelayProperties.DEFAULT_BATCH_SIZE,
                RelayProperties.DEFAULT_MAX_IN_FLIGHT_BATCHES, RelayProperties.DEFAULT_PUBLISH_CONCURRENCY,
                RelayProperties.DEFAULT_CLAIM_LINGER));
        assertThat(drain.baseline()).isTrue();
        assertThat(drain.poisonTopic()).isFalse();
        assertThat(drain.failingKey()).isFalse();
        assertThat(drain.servers()).isEqualTo(Servers.EMBEDDED);
    }

    @Test
    void quickModeShrinksTheRunAndDropsTheWarmUp() {
        Drain drain = (Drain) BenchMode.parse("drain", "--quick");
        Latency latency = (Latency) BenchMode.parse("latency", "--quick");
        LargeDrain large = (LargeDrain) BenchMode.parse("large-drain", "--quick");

        assertThat(drain.backlog().n()).isEqualTo(Drain.QUICK_N);
        assertThat(drain.warmup()).isZero();
        assertThat(latency.rate()).isEqualTo(Latency.QUICK_RATE);
        assertThat(latency.duration()).isEqualTo(Latency.QUICK_DURATION);
        assertThat(large.backlog()).isEqualTo(new Backlog(LargeDrain.QUICK_N, new Keys.Spread(64),
                LargeDrain.DEFAULT_PAYLOAD_BYTES));
    }

    @Test
    void eachModeHasItsOwnDefaults() {
        Inbox inbox = (Inbox) BenchMode.parse("inbox");
        BlackBox blackbox = (BlackBox) BenchMode.parse("blackbox");
        Overload overload = (Overload) BenchMode.parse("overload");

        assertThat(inbox.n()).isEqualTo(Inbox.DEFAULT_N);
        assertThat(inbox.ordering()).as("a consumer's default").isEqualTo(Ordering.NONE);
        assertThat(inbox.concurrency()).isEqualTo(InboxProperties.Consumer.DEFAULT_CONCURRENCY);
        assertThat(inbox.warmup()).isEqualTo(Inbox.DEFAULT_WARMUP);
        assertThat(blackbox.warmup()).isEqualTo(BlackBox.DEFAULT_WARMUP).isEqualTo(100_000);
        assertThat(overload.requests()).isEqualTo(300);
        assertThat(overload.payloadBytes()).isEqualTo(1024 * 1024);
    }

    @Test
    void theSourcesModeTakesTheDocumentedDefaultsAndBothServersOrNeither() {
        BlackBoxSources sources = (BlackBoxSources) BenchMode.parse("blackbox-sources", "--pg-url",
                "jdbc:postgresql://127.0.0.1:15432/postgres", "--pg2-url", "jdbc:postgresql://127.0.0.1:15433/postgres");
        BlackBoxSources quick = (BlackBoxSources) BenchMode.parse("blackbox-sources", "--quick");

        assertThat(sources.backlog()).isEqualTo(new Backlog(BlackBoxSources.DEFAULT_N, new Keys.Spread(64), 256));
        assertThat(BlackBoxSources.DEFAULT_N).isEqualTo(100_000);
        assertThat(sources.warmup()).isEqualTo(BlackBoxSources.DEFAULT_WARMUP).isEqualTo(100_000);
        assertThat(sources.down()).isEqualTo(Duration.ofSeconds(BlackBoxSources.DEFAULT_DOWN_S)).hasSeconds(5);
        assertThat(sources.ordering()).isEqualTo(Ordering.PER_KEY);
        assertThat(sources.pg2User()).isEqualTo(Servers.DEFAULT_USER);
        assertThat(quick.backlog().n()).isEqualTo(BlackBoxSources.QUICK_N);
        assertThat(quick.warmup()).isZero();
        assertThat(quick.pg2Url()).as("a second embedded server").isNull();
        assertThatThrownBy(() -> BenchMode.parse("blackbox-sources", "--pg-url", "jdbc:postgresql://db:5432/app"))
                .hasMessageStartingWith("--pg2-url and --pg-url come together");
        assertThatThrownBy(() -> BenchMode.parse("blackbox-sources", "--pg-url", "jdbc:postgresql://db:5432/app",
                "--pg2-url", "postgres://db2")).hasMessageStartingWith("--pg2-url must be jdbc:postgresql://");
    }

    @Test
    void formatsDefaultToEveryFormatAndMustListPlain() {
        BlackBoxFormats formats = (BlackBoxFormats) BenchMode.parse("blackbox-formats");
        BlackBoxFormats quick = (BlackBoxFormats) BenchMode.parse("blackbox-formats", "--quick",
                "--formats", "cloudevents-binary, plain");

        assertThat(formats.formats()).containsExactly("plain", "cloudevents-binary", "cloudevents-structured");
        assertThat(formats.rounds()).isEqualTo(BlackBoxFormats.DEFAULT_ROUNDS).isEqualTo(3);
        assertThat(formats.backlog().n()).isEqualTo(BlackBoxFormats.DEFAULT_N).isEqualTo(100_000);
        assertThat(formats.warmup()).isEqualTo(BlackBoxFormats.DEFAULT_WARMUP).isEqualTo(100_000);
        assertThat(formats.backlog().payloadBytes()).isEqualTo(Backlog.DEFAULT_PAYLOAD_BYTES);
        assertThat(quick.formats()).containsExactly("cloudevents-binary", "plain");
        assertThat(quick.rounds()).isEqualTo(BlackBoxFormats.QUICK_ROUNDS);
        assertThat(quick.warmup()).isZero();
        assertThatThrownBy(() -> BenchMode.parse("blackbox-formats", "--formats", "cloudevents-binary"))
                .hasMessageContaining("--formats").hasMessageContaining("'cloudevents-binary'");
        assertThatThrownBy(() -> BenchMode.parse("blackbox-formats", "--formats", "plain,avro"))
                .hasMessageContaining("--formats").hasMessageContaining("'plain,avro'");
        assertThatThrownBy(() -> BenchMode.parse("blackbox-formats", "--formats", "plain,plain"))
                .hasMessageContaining("--formats");
    }

    @Test
    void theBlackBoxInboxStartsOnAStandingBacklogWithTheInboxModesReceiver() {
        BlackBoxInbox inbox = (BlackBoxInbox) BenchMode.parse("blackbox-inbox");
        BlackBoxInbox quick = (BlackBoxInbox) BenchMode.parse("blackbox-inbox", "--quick", "--warm-n", "0");

        assertThat(inbox.n()).isEqualTo(BlackBoxInbox.DEFAULT_N).isEqualTo(100_000);
        assertThat(inbox.warmN()).isEqualTo(BlackBoxInbox.DEFAULT_WARM_N).isEqualTo(100_000);
        assertThat(inbox.concurrency()).as("the consumer's default").isEqualTo(
                InboxProperties.Consumer.DEFAULT_CONCURRENCY);
        assertThat(inbox.receiverDelayMs()).as("as the inbox mode's").isEqualTo(Inbox.DEFAULT_RECEIVER_DELAY_MS);
        assertThat(inbox.payloadBytes()).isEqualTo(Backlog.DEFAULT_PAYLOAD_BYTES);
        assertThat(quick.n()).isEqualTo(BlackBoxInbox.QUICK_N);
        assertThat(quick.warmN()).isZero();
        assertThatThrownBy(() -> BenchMode.parse("blackbox-inbox", "--handler", "sql"))
                .hasMessageContaining("blackbox-inbox does not take --handler");
    }

    @Test
    void theNewTopicModeRunsOnABrokerThatCreatesTopicsWithTwoThousandRowsARound() {
        BlackBoxNewTopic newTopic = (BlackBoxNewTopic) BenchMode.parse("blackbox-new-topic");
        BlackBoxNewTopic quick = (BlackBoxNewTopic) BenchMode.parse("blackbox-new-topic", "--quick", "--n", "500");

        assertThat(newTopic.brokerCreatesTopics()).isTrue();
        assertThat(BenchMode.parse("blackbox").brokerCreatesTopics()).as("the other modes' broker does not").isFalse();
        assertThat(newTopic.backlog().n()).isEqualTo(2_000);
        assertThat(newTopic.rounds()).isEqualTo(BlackBoxNewTopic.DEFAULT_ROUNDS);
        assertThat(newTopic.warmup()).isEqualTo(BlackBoxNewTopic.DEFAULT_WARMUP);
        assertThat(quick.backlog().n()).isEqualTo(500);
        assertThat(quick.rounds()).isEqualTo(BlackBoxNewTopic.QUICK_ROUNDS);
        assertThat(quick.warmup()).isZero();
        assertThatThrownBy(() -> BenchMode.parse("blackbox-new-topic", "--rounds", "0"))
                .hasMessageContaining("--rounds");
    }

    @Test
    void theImageModeComparesTheImageWithTheJarInTwoRoundsAndBuildsItsImageUnlessOneIsNamed() {
        BlackBoxImage image = (BlackBoxImage) BenchMode.parse("blackbox-image");
        BlackBoxImage given = (BlackBoxImage) BenchMode.parse("blackbox-image", "--image", "localhost/dispatcher:0.1.0",
                "--rounds", "3", "--service-args", "--dispatcher.relay.batch-size=500");
        BlackBoxImage quick = (BlackBoxImage) BenchMode.parse("blackbox-image", "--quick");

        assertThat(image.backlog()).isEqualTo(new Backlog(100_000, new Keys.Spread(64), Backlog.DEFAULT_PAYLOAD_BYTES));
        assertThat(image.ordering()).isEqualTo(Ordering.PER_KEY);
        assertThat(image.rounds()).isEqualTo(BlackBoxImage.DEFAULT_ROUNDS).isEqualTo(2);
        assertThat(image.warmup()).as("as blackbox warms up its jar").isEqualTo(BlackBox.DEFAULT_WARMUP);
        assertThat(image.image()).as("the run builds its own").isNull();
        assertThat(image.servers()).isEqualTo(Servers.EMBEDDED);
        assertThat(given.image()).isEqualTo("localhost/dispatcher:0.1.0");
        assertThat(given.rounds()).isEqualTo(3);
        assertThat(given.serviceArgs()).containsExactly("--dispatcher.relay.batch-size=500");
        assertThat(quick.backlog().n()).isEqualTo(BlackBoxImage.QUICK_N);
        assertThat(quick.rounds()).isEqualTo(BlackBoxImage.QUICK_ROUNDS).isEqualTo(1);
        assertThat(quick.warmup()).isZero();
        assertThatThrownBy(() -> BenchMode.parse("blackbox-image", "--image", " "))
                .hasMessageStartingWith("--image must name an image's tag");
        assertThatThrownBy(() -> BenchMode.parse("blackbox-image", "--rounds", "0")).hasMessageContaining("--rounds")
                .hasMessageContaining("'0'");
        assertThatThrownBy(() -> BenchMode.parse("blackbox-image", "--fresh-n", "1000"))
                .hasMessageContaining("blackbox-image does not take --fresh-n").hasMessageContaining("--image");
    }

    @Test
    void theScaleCurvesFreshStepsAreOffUnlessAsked() {
        BlackBoxScale plain = (BlackBoxScale) BenchMode.parse("blackbox-scale");
        BlackBoxScale fresh = (BlackBoxScale) BenchMode.parse("blackbox-scale", "--fresh-n", "100000");

        assertThat(plain.freshN()).isZero();
        assertThat(fresh.freshN()).isEqualTo(100_000);
        assertThat(fresh.freshInstances()).isEqualTo(BlackBoxScale.DEFAULT_FRESH_INSTANCES).isEqualTo(2);
        assertThatThrownBy(() -> BenchMode.parse("blackbox-scale", "--fresh-instances", "1"))
                .hasMessageContaining("--fresh-instances must be a whole number between 2 and 16, but was '1'");
    }

    @Test
    void flagsTakeAnOptionalTrueOrFalse() {
        Drain off = (Drain) BenchMode.parse("drain", "--baseline", "false", "--poison-topic", "--failing-key", "true");
        Inbox inbox = (Inbox) BenchMode.parse("inbox", "--poison-key", "true", "--n", "1000");

        assertThat(off.baseline()).isFalse();
        assertThat(off.poisonTopic()).isTrue();
        assertThat(off.failingKey()).isTrue();
        assertThat(inbox.poisonKey()).isTrue();
        assertThat(inbox.n()).isEqualTo(1000);
    }

    @Test
    void serviceArgsAreSplitIntoTheServicesCommandLine() {
        BlackBox blackbox = (BlackBox) BenchMode.parse("blackbox", "--service-args",
                "--dispatcher.relay.batch-size=500 --dispatcher.relay.claim-linger=20ms");

        assertThat(blackbox.serviceArgs()).containsExactly("--dispatcher.relay.batch-size=500",
                "--dispatcher.relay.claim-linger=20ms");
    }

    @Test
    void anOptionTheModeDoesNotTakeIsRefusedNamingItAndTheModesOptions() {
        assertThatThrownBy(() -> BenchMode.parse("blackbox", "--batch-size", "500"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("blackbox does not take --batch-size; its options: --quick --n --keys");
        assertThatThrownBy(() -> BenchMode.parse("drain", "--rate", "100"))
                .hasMessageStartingWith("drain does not take --rate");
    }

    @Test
    void aBadValueIsRefusedNamingTheOptionAndTheValue() {
        assertThatThrownBy(() -> BenchMode.parse("drain", "--n", "0"))
                .hasMessage("--n must be a whole number between 1 and 100000000, but was '0'");
        assertThatThrownBy(() -> BenchMode.parse("drain", "--batch-size", "lots"))
                .hasMessage("--batch-size must be a whole number between 1 and 10000, but was 'lots'");
        assertThatThrownBy(() -> BenchMode.parse("drain", "--keys", "many"))
                .hasMessage("--keys must be a number of keys, hot or none, but was 'many'");
        assertThatThrownBy(() -> BenchMode.parse("drain", "--ordering", "perkey"))
                .hasMessage("--ordering must be per-key, per-key-across-topics or none, but was 'perkey'");
        assertThatThrownBy(() -> BenchMode.parse("latency", "--duration-s", "0"))
                .hasMessage("--duration-s must be a whole number between 1 and 86400 s, but was '0'");
        assertThatThrownBy(() -> BenchMode.parse("inbox", "--handler", "kafka"))
                .hasMessage("--handler must be webhook or sql, but was 'kafka'");
        assertThatThrownBy(() -> BenchMode.parse("drain", "--pg-url", "postgres://db"))
                .hasMessageStartingWith("--pg-url must be jdbc:postgresql://");
    }

    @Test
    void malformedCommandLinesAreRefused() {
        assertThatThrownBy(BenchMode::parse).hasMessageStartingWith("no mode given; modes: drain|latency|sweep");
        assertThatThrownBy(() -> BenchMode.parse("drian")).hasMessageStartingWith("unknown mode 'drian'");
        assertThatThrownBy(() -> BenchMode.parse("drain", "--n")).hasMessage("--n needs a value");
        assertThatThrownBy(() -> BenchMode.parse("drain", "100")).hasMessageContaining("got '100'");
        assertThatThrownBy(() -> BenchMode.parse("drain", "--n", "1", "--n", "2")).hasMessage("--n is given twice");
    }

    @Test
    void overloadNeedsTheEmbeddedDatabase() {
        assertThatThrownBy(() -> BenchMode.parse("overload", "--pg-url", "jdbc:postgresql://db:5432/app"))
                .hasMessageContaining("needs the embedded server");
    }

    @Test
    void keysAndOrderingReadAsTheRunReportsThem() {
        Drain hot = (Drain) BenchMode.parse("drain", "--keys", "hot", "--ordering", "none");
        Drain none = (Drain) BenchMode.parse("drain", "--keys", "0");

        assertThat(hot.backlog().keys().text()).isEqualTo("hot");
        assertThat(hot.backlog().keys().sqlExpression()).contains("'hot'");
        assertThat(hot.ordering().text()).isEqualTo("none");
        assertThat(none.backlog().keys()).isEqualTo(new Keys.None("0"));
        assertThat(none.backlog().keys().sqlExpression()).isEqualTo("NULL");
    }

    @Test
    void theSweepsGridIsSmallForSmallRuns() {
        Sweep small = (Sweep) BenchMode.parse("sweep", "--n", "5000");
        Sweep large = (Sweep) BenchMode.parse("sweep", "--n", "20000", "--claim-linger-ms", "20");

        assertThat(small.cells()).hasSize(4).first().isEqualTo(new Sweep.Cell(100, 64, 2));
        assertThat(large.cells()).hasSize(18).contains(new Sweep.Cell(1000, 64, 8));
        assertThat(large.claimLinger()).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void theSustainedRunTakesTheDocumentedDefaults() {
        Sustained sustained = (Sustained) BenchMode.parse("relay-sustained");
        Sustained quick = (Sustained) BenchMode.parse("relay-sustained", "--quick");

        assertThat(sustained.minutes()).isEqualTo(Sustained.DEFAULT_MINUTES).isEqualTo(10);
        assertThat(sustained.rate()).isEqualTo(Sustained.DEFAULT_RATE).isEqualTo(5_000);
        assertThat(sustained.batchRows()).isEqualTo(Sustained.DEFAULT_BATCH_ROWS).isEqualTo(20);
        assertThat(sustained.writers()).isEqualTo(Sustained.DEFAULT_WRITERS).isEqualTo(4);
        assertThat(sustained.keys()).isEqualTo(new Keys.Spread(64));
        assertThat(sustained.ordering()).isEqualTo(Ordering.PER_KEY);
        assertThat(sustained.retention()).isEqualTo(Duration.ofSeconds(Sustained.DEFAULT_RETENTION_SECONDS))
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(quick.minutes()).isEqualTo(Sustained.QUICK_MINUTES).isEqualTo(1);
        assertThat(quick.rate()).isEqualTo(Sustained.QUICK_RATE).isEqualTo(300);
    }

    @Test
    void theSustainedRunRefusesKeysItsWritersCannotOwn() {
        assertThatThrownBy(() -> BenchMode.parse("relay-sustained", "--keys", "hot"))
                .hasMessageStartingWith("relay-sustained takes --keys as a number of keys or none");
        assertThatThrownBy(() -> BenchMode.parse("relay-sustained", "--keys", "3", "--writers", "4"))
                .hasMessageStartingWith("--keys must be at least --writers (4), but was 3");
        assertThatThrownBy(() -> BenchMode.parse("relay-sustained", "--minutes", "1440", "--rate", "100000"))
                .hasMessageStartingWith("--minutes x 60 x --rate must be at most 1000000000 rows");
        assertThat(((Sustained) BenchMode.parse("relay-sustained", "--keys", "none")).keys())
                .isEqualTo(new Keys.None("none"));
    }

    @Test
    void theBlackBoxComparesTheOrderingsInPairsOnlyFromPerKey() {
        BlackBox plain = (BlackBox) BenchMode.parse("blackbox");
        BlackBox compared = (BlackBox) BenchMode.parse("blackbox", "--n", "100000", "--compare-ordering");
        BlackBox five = (BlackBox) BenchMode.parse("blackbox", "--compare-ordering", "true", "--pairs", "5",
                "--fresh-n", "0");

        assertThat(plain.compareOrdering()).isFalse();
        assertThat(plain.pairs()).isEqualTo(BlackBox.DEFAULT_PAIRS).isEqualTo(3);
        assertThat(compared.compareOrdering()).as("a flag, no value needed").isTrue();
        assertThat(compared.ordering()).isEqualTo(Ordering.PER_KEY);
        assertThat(compared.pairs()).isEqualTo(3);
        assertThat(five.compareOrdering()).isTrue();
        assertThat(five.pairs()).isEqualTo(5);
        assertThat(five.freshN()).isZero();
        assertThatThrownBy(() -> BenchMode.parse("blackbox", "--compare-ordering", "--ordering",
                "per-key-across-topics")).hasMessageStartingWith("--compare-ordering compares per-key with"
                        + " per-key-across-topics, so --ordering must be per-key, but was 'per-key-across-topics'");
        assertThatThrownBy(() -> BenchMode.parse("blackbox", "--pairs", "4"))
                .hasMessageStartingWith("--pairs counts --compare-ordering's pairs");
        assertThatThrownBy(() -> BenchMode.parse("blackbox", "--compare-ordering", "--pairs", "0"))
                .hasMessageStartingWith("--pairs must be a whole number between 1 and " + BlackBox.MAX_PAIRS);
        assertThatThrownBy(() -> BenchMode.parse("blackbox-formats", "--compare-ordering"))
                .hasMessageContaining("blackbox-formats does not take --compare-ordering");
    }

    @Test
    void everyModeNameParses() {
        for (String name : BenchMode.NAMES) {
            assertThat(BenchMode.parse(name).name()).isEqualTo(name);
        }
        assertThat(BenchMode.NAMES).as("a name for every mode record").doesNotHaveDuplicates()
                .hasSize(BenchMode.class.getPermittedSubclasses().length);
        assertThat(List.copyOf(BenchMode.NAMES)).contains("blackbox-scale", "reference-latency", "large-drain");
    }
}
