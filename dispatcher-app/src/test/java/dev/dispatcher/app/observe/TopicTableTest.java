package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The bound of per-topic state: a hundred thousand distinct topic names never take a table past its capacity;
 * idle topics are dropped first, then the least recently used (or, for a refusing table, new topics are refused);
 * every dropped topic is handed to {@code onDrop} and counted, by why, in {@code dispatcher.topics.evicted}.
 */
class TopicTableTest {

    private static final Duration IDLE = Duration.ofMinutes(10);

    private final ManualClock clock = new ManualClock();
    private final List<String> dropped = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TopicTable.Evictions evictions = TopicTable.evictionsIn(meters, "test_topics");

    @Test
    void aHundredThousandDistinctTopicNamesLeaveTheTableWithinItsCapacity() {
        TopicTable<String> table = TopicTable.dropping("test topics", (topic, value) -> dropped.add(topic),
                evictions, clock);
        int largest = 0;
        int misses = 0;

        for (int i = 0; i < 100_000; i++) {
            String topic = "orders." + i;
            misses += ("state of " + topic).equals(table.computeIfAbsent(topic, name -> "state of " + name)) ? 0 : 1;
            largest = Math.max(largest, table.size());
            clock.advance(Duration.ofMillis(1));
        }

        assertThat(misses).as("every topic got its own state").isZero();
        assertThat(largest).isEqualTo(TopicTable.DEFAULT_CAPACITY);
        assertThat(table.size()).isLessThanOrEqualTo(TopicTable.DEFAULT_CAPACITY);
        assertThat(dropped).as("every topic no longer held was handed to onDrop, once")
                .hasSize(100_000 - table.size()).doesNotHaveDuplicates();
        assertThat(table.get("orders.99999")).as("the newest is held").isEqualTo("state of orders.99999");
        assertThat(table.get("orders.0")).as("the oldest was dropped").isNull();
        assertThat(evicted("least_recently_used")).as("every drop counted: each topic was used within the idle time")
                .isEqualTo(100_000 - table.size());
        assertThat(evicted("idle") + evicted("refused")).isZero();
    }

    @Test
    void aFullTableDropsItsIdleTopicsFirstAndKeepsTheOnesUsedLately() {
        TopicTable<Integer> table = table(TopicTable.WhenFull.DROP_LEAST_RECENTLY_USED);
        IntStream.range(0, 10).forEach(i -> table.computeIfAbsent("t" + i, name -> 0));
        clock.advance(IDLE);
        IntStream.range(0, 5).forEach(i -> table.get("t" + i)); // used again: not idle

        table.computeIfAbsent("new", name -> 0);

        assertThat(dropped).containsExactlyInAnyOrder("t5", "t6", "t7", "t8", "t9");
        assertThat(IntStream.range(0, 5).mapToObj(i -> table.get("t" + i))).doesNotContainNull();
        assertThat(table.size()).isEqualTo(6);
        assertThat(evicted("idle")).isEqualTo(5);
        assertThat(evicted("least_recently_used")).isZero();
    }

    @Test
    void withNoIdleTopicAFullTableDropsTheLeastRecentlyUsedDownToNineTenths() {
        TopicTable<Integer> table = table(TopicTable.WhenFull.DROP_LEAST_RECENTLY_USED);
        for (int i = 0; i < 10; i++) {
            table.computeIfAbsent("t" + i, name -> 0);
            clock.advance(Duration.ofSeconds(1));
        }
        table.compute("t0", (name, old) -> old + 1); // the oldest, used last

        table.computeIfAbsent("new", name -> 0);

        assertThat(dropped).containsExactly("t1");
        assertThat(table.get("t0")).isEqualTo(1);
        assertThat(table.size()).isEqualTo(10);
    }

    @Test
    void aRefusingTableKeepsItsTopicsAndRefusesNewOnesUntilSomeWentIdle() {
        TopicTable<Integer> table = table(TopicTable.WhenFull.REFUSE_NEW);
        IntStream.range(0, 10).forEach(i -> table.computeIfAbsent("t" + i, name -> i));

        assertThat(table.computeIfAbsent("refused", name -> 99)).isNull();
        assertThat(table.compute("refused", (name, old) -> 99)).isNull();
        assertThat(table.get("t3")).as("the topics held stay, and may change").isEqualTo(3);
        assertThat(table.compute("t3", (name, old) -> old + 10)).isEqualTo(13);
        assertThat(dropped).isEmpty();
        assertThat(evicted("refused")).as("each refusal counted").isEqualTo(2);

        clock.advance(IDLE);
        table.get("t3");
        assertThat(table.computeIfAbsent("taken", name -> 100)).as("a sweep is due after a second")
                .isEqualTo(100);
        assertThat(dropped).hasSize(9).doesNotContain("t3");
        assertThat(table.size()).isEqualTo(2);
    }

    @Test
    void aRefusingTableThatFoundNothingIdleLooksAgainOnlyAfterItsBackoff() {
        TopicTable<Integer> table = table(TopicTable.WhenFull.REFUSE_NEW);
        IntStream.range(0, 10).forEach(i -> table.computeIfAbsent("t" + i, name -> i));
        clock.advance(IDLE.minusMillis(500));
        assertThat(table.computeIfAbsent("first", name -> 0)).isNull(); // a sweep found nothing idle yet

        clock.advance(Duration.ofMillis(600)); // every topic idle now, but the backoff has not passed
        assertThat(table.computeIfAbsent("within the backoff", name -> 0)).isNull();
        assertThat(dropped).isEmpty();
        clock.advance(TopicTable.SWEEP_BACKOFF);
        assertThat(table.computeIfAbsent("after it", name -> 0)).isZero();
        assertThat(dropped).hasSize(10);
    }

    @Test
    void removeDropsOnlyTheValueTheCallerHeldWithoutOnDrop() {
        TopicTable<String> table = TopicTable.dropping("test topics", (topic, value) -> dropped.add(topic),
                evictions, clock);
        table.computeIfAbsent("t", name -> "first");

        assertThat(table.remove("t", "another")).isFalse();
        assertThat(table.remove("t", table.get("t"))).isTrue();
        assertThat(table.get("t")).isNull();
        assertThat(dropped).isEmpty();
        assertThat(evicted("idle") + evicted("least_recently_used") + evicted("refused")).isZero();
    }

    private TopicTable<Integer> table(TopicTable.WhenFull whenFull) {
        return new TopicTable<>("test topics", 10, IDLE, whenFull, (topic, value) -> dropped.add(topic), evictions,
                clock);
    }

    private long evicted(String reason) {
        return (long) meters.get(TopicTable.EVICTED_METRIC).tags("table", "test_topics", "reason", reason).counter()
                .count();
    }
}
