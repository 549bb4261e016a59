package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import dev.dispatcher.domain.StatusTransition.Actor;

/**
 * A model test of {@link TransitionClassifier}: random interleavings of other actors' writes with our guarded
 * transition statement, played out the way PostgreSQL orders them, and the classification checked against what
 * actually happened.
 *
 * <p>The model: we leased a live row under {@link #OUR_TOKEN}. Events then commit at given database times, some
 * before our statement's snapshot, some while the statement runs (it waits for them on the row lock): another
 * worker re-claims once our lease has run out (fresh token), that worker finishes its own transition, an operator
 * dead-letters a live row or replays a terminal one (token cleared, version + 1), the row is deleted, or our own
 * earlier attempt of the same transition commits although its acknowledgement was lost. The statement then sees
 * the snapshot row, locks the current row and writes only if the current row is live, carries our token and our
 * lease was not ended ({@link MessageState#isHeldBy}).
 */
class TransitionClassifierPropertiesTest {

    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final MessageId ID = MessageId.of(new UUID(0x5eed, 42));
    static final UUID OUR_TOKEN = new UUID(1, 1);
    static final Duration LEASE = Duration.ofSeconds(30);

    enum Kind {
        NOTHING,
        OTHER_WORKER_CLAIMS,
        OTHER_WORKER_TRANSITIONS,
        OPERATOR_DEAD_LETTERS,
        OPERATOR_REPLAYS,
        DELETED,
        OUR_EARLIER_WRITE_COMMITS
    }

    /** One commit by some actor at {@code NOW + offsetSeconds}; {@code variant} picks another worker's transition. */
    record Event(Kind kind, int offsetSeconds, int variant) {
    }

    record Scenario(
            Queue queue,
            Transition requested,
            LeasedMessage ours,
            List<Event> beforeSnapshot,
            List<Event> duringStatement) {
    }

    enum Writer { OUR_CLAIM, OURS, SOMEONE_ELSE }

    /** What PostgreSQL would have handed the classifier, and who wrote the row last. */
    record Observation(
            Optional<MessageState> snapshot,
            Optional<MessageState> current,
            Optional<MessageState> written,
            Writer lastWriter,
            boolean changedBySomeoneElseDuringStatement) {
    }

    static final List<Transition> TRANSITIONS = List.of(
            new Transition.Deliver(),
            new Transition.ScheduleRetry(Duration.ofSeconds(10), "transient"),
            new Transition.DeadLetter("poison"),
            new Transition.RenewLease(LEASE),
            new Transition.Release(),
            new Transition.Release(Duration.ofSeconds(5), "topic unavailable"));

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<Transition> requested = Arbitraries.oneOf(
                Arbitraries.of(TRANSITIONS),
                Arbitraries.integers().between(0, 3_600)
                        .map(s -> (Transition) new Transition.ScheduleRetry(Duration.ofSeconds(s), "e" + s)),
                Arbitraries.integers().between(1, 600)
                        .map(s -> (Transition) new Transition.RenewLease(Duration.ofSeconds(s))));
        Arbitrary<LeasedMessage> ours = Combinators.combine(
                        Arbitraries.of(MessageStatus.PENDING, MessageStatus.RETRY_SCHEDULED),
                        Arbitraries.integers().between(-90, 90),
                        Arbitraries.longs().between(0, 1_000),
                        Arbitraries.integers().between(1, 20))
                .as((status, leaseEndsIn, version, attempts) -> new LeasedMessage(
                        ID, new Lease("worker-us", OUR_TOKEN, NOW.plusSeconds(leaseEndsIn)), version, attempts,
                        status, "key", 1));
        Arbitrary<Kind> kinds = Arbitraries.frequency(
                Tuple.of(2, Kind.NOTHING),
                Tuple.of(5, Kind.OTHER_WORKER_CLAIMS),
                Tuple.of(3, Kind.OTHER_WORKER_TRANSITIONS),
                Tuple.of(2, Kind.OPERATOR_DEAD_LETTERS),
                Tuple.of(2, Kind.OPERATOR_REPLAYS),
                Tuple.of(1, Kind.DELETED),
                Tuple.of(3, Kind.OUR_EARLIER_WRITE_COMMITS));
        Arbitrary<Integer> variants = Arbitraries.integers().between(0, TRANSITIONS.size() - 1);
        Arbitrary<List<Event>> before = Combinators.combine(kinds, Arbitraries.integers().between(-120, -1), variants)
                .as(Event::new).list().ofMaxSize(3).map(TransitionClassifierPropertiesTest::inTimeOrder);
        Arbitrary<List<Event>> during = Combinators.combine(kinds, Arbitraries.integers().between(0, 120), variants)
                .as(Event::new).list().ofMaxSize(3).map(TransitionClassifierPropertiesTest::inTimeOrder);
        return Combinators.combine(Arbitraries.of(Queue.class), requested, ours, before, during).as(Scenario::new);
    }

    private static List<Event> inTimeOrder(List<Event> events) {
        return events.stream().sorted(Comparator.comparingInt(Event::offsetSeconds)).toList();
    }

    @Property(tries = 2_000)
    void classificationMatchesWhatHappened(@ForAll("scenarios") Scenario scenario) {
        Observation seen = play(scenario);
        LeasedMessage ours = scenario.ours();

        TransitionResult result = TransitionClassifier.classify(
                scenario.queue(), scenario.requested(), ours, seen.snapshot(), seen.current(), seen.written(), NOW);

        TransitionOutcome outcome = result.outcome();
        assertExactlyOneOutcome(outcome);
        assertThat(outcome).isEqualTo(expectedOutcome(seen));
        assertOnlyIfRules(scenario, seen, result);
        Statistics.label("outcome").collect(outcome.tag());
        Statistics.label("applied by").collect(
                !result.isApplied() ? "-" : seen.written().isPresent() ? "this write" : "earlier ambiguous commit");
        Statistics.label("outcome").coverage(coverage -> {
            for (String tag : List.of("applied", "stale_lease", "terminal", "concurrency_lost", "missing")) {
                coverage.check(tag).count((Integer count) -> count > 0);
            }
        });
        Statistics.label("applied by").coverage(coverage ->
                coverage.check("earlier ambiguous commit").count((Integer count) -> count > 0));
    }

    /**
     * The outcome from the history, not from the rows: gone; written now; our own earlier write is what is stored;
     * someone else committed while our live lease was being written; otherwise the durable row's nature.
     */
    private static TransitionOutcome expectedOutcome(Observation seen) {
        if (seen.current().isEmpty()) {
            return TransitionOutcome.MISSING;
        }
        if (seen.written().isPresent() || seen.lastWriter() == Writer.OURS) {
            return TransitionOutcome.APPLIED;
        }
        boolean snapshotWasOurLiveLease = seen.snapshot().filter(s -> s.isLiveLeaseOf(OUR_TOKEN, NOW)).isPresent();
        if (snapshotWasOurLiveLease) {
            // The guard failed although our lease was live at the snapshot: only a concurrent commit explains it.
            assertThat(seen.changedBySomeoneElseDuringStatement()).isTrue();
            return TransitionOutcome.CONCURRENCY_LOST;
        }
        return seen.current().get().status().isTerminal() ? TransitionOutcome.TERMINAL : TransitionOutcome.STALE_LEASE;
    }

    private static void assertOnlyIfRules(Scenario scenario, Observation seen, TransitionResult result) {
        LeasedMessage ours = scenario.ours();
        switch (result.outcome()) {
            case TransitionOutcome.Applied a -> {
                if (seen.written().isPresent()) {
                    assertThat(result.entry()).isEqualTo(seen.written().get());
                } else {
                    MessageState cur = seen.current().orElseThrow();
                    assertThat(scenario.requested().endsLease()).isTrue();
                    assertThat(cur.leaseToken()).isEqualTo(OUR_TOKEN);
                    assertThat(cur.leaseUntil()).isNull();
                    assertThat(cur.status()).isEqualTo(scenario.requested().targetStatus(scenario.queue(), ours.status()));
                    assertThat(result.entry()).isEqualTo(cur);
                }
                assertThat(result.durableStatusTag()).isEqualTo(result.entry().status().tag());
            }
            case TransitionOutcome.Missing m -> {
                assertThat(seen.current()).isEmpty();
                assertThat(result.entry()).isEqualTo(ours.asState());
                assertThat(result.durableStatusTag()).isEqualTo("absent");
            }
            case TransitionOutcome.ConcurrencyLost c -> {
                MessageState snapshot = seen.snapshot().orElseThrow();
                assertThat(snapshot.isLiveLeaseOf(OUR_TOKEN, NOW)).isTrue();
                assertThat(seen.current()).isPresent().get().isNotEqualTo(snapshot);
                assertThat(seen.written()).isEmpty();
                assertThat(result.entry()).isEqualTo(seen.current().get());
            }
            case TransitionOutcome.Terminal t -> {
                assertThat(seen.current()).isPresent().get().satisfies(cur -> assertThat(cur.status().isTerminal()).isTrue());
                assertThat(seen.written()).isEmpty();
                assertThat(result.entry()).isEqualTo(seen.current().get());
            }
            case TransitionOutcome.StaleLease s -> {
                MessageState cur = seen.current().orElseThrow();
                assertThat(cur.status().isTerminal()).isFalse();
                assertThat(!OUR_TOKEN.equals(cur.leaseToken()) || cur.leaseUntil() == null).isTrue();
                assertThat(seen.written()).isEmpty();
                assertThat(result.entry()).isEqualTo(cur);
            }
        }
        // Missing exactly when the row is gone: the other way round too.
        if (seen.current().isEmpty()) {
            assertThat(result.outcome()).isInstanceOf(TransitionOutcome.Missing.class);
        }
    }

    /**
     * A row our guarded Deliver may write (live, held under our token) is the row our claim left, whatever happened
     * between: so what the write leaves is {@link LeasedMessage#afterDeliver}, which a store reports without reading
     * the row back.
     */
    @Property(tries = 2_000)
    void aDeliverWrittenUnderOurLeaseLeavesWhatTheLeaseSnapshotDerives(@ForAll("scenarios") Scenario scenario) {
        Observation seen = play(scenario);
        if (scenario.requested() instanceof Transition.Deliver && seen.written().isPresent()) {
            assertThat(seen.written().get()).isEqualTo(scenario.ours().afterDeliver(scenario.queue()));
        }
        Statistics.label("deliver written").collect(
                scenario.requested() instanceof Transition.Deliver && seen.written().isPresent());
        Statistics.label("deliver written").coverage(coverage -> coverage.check(true).count((Integer c) -> c > 0));
    }

    private static void assertExactlyOneOutcome(TransitionOutcome outcome) {
        long matching = Stream.of(
                        outcome instanceof TransitionOutcome.Applied,
                        outcome instanceof TransitionOutcome.StaleLease,
                        outcome instanceof TransitionOutcome.Terminal,
                        outcome instanceof TransitionOutcome.ConcurrencyLost,
                        outcome instanceof TransitionOutcome.Missing)
                .filter(Boolean::booleanValue).count();
        assertThat(matching).isEqualTo(1);
        assertThat(outcome.tag()).isIn("applied", "stale_lease", "terminal", "concurrency_lost", "missing");
    }

    /** Plays the scenario: events before the snapshot, the snapshot, events the lock waits for, lock and write. */
    static Observation play(Scenario scenario) {
        Model model = new Model(scenario.queue(), scenario.requested(), scenario.ours().asState());
        for (Event event : scenario.beforeSnapshot()) {
            model.apply(event);
        }
        Optional<MessageState> snapshot = model.row;
        boolean changed = false;
        for (Event event : scenario.duringStatement()) {
            changed |= model.apply(event) && model.lastWriter == Writer.SOMEONE_ELSE;
        }
        Optional<MessageState> current = model.row;
        Optional<MessageState> written = current
                .filter(cur -> cur.isHeldBy(OUR_TOKEN))
                .map(cur -> write(scenario.queue(), scenario.requested(), cur, NOW));
        return new Observation(snapshot, current, written, model.lastWriter, changed);
    }

    /**
     * The row as PostgreSQL holds it. Every status change checks {@link StatusTransition#require}, so the model
     * never makes a move the domain calls illegal.
     */
    static final class Model {
        final Queue queue;
        final Transition ours;
        Optional<MessageState> row;
        Writer lastWriter = Writer.OUR_CLAIM;
        int claims;

        Model(Queue queue, Transition ours, MessageState leased) {
            this.queue = queue;
            this.ours = ours;
            this.row = Optional.of(leased);
        }

        /** Applies one event if its precondition holds on the row, as the actor's guarded statement would. */
        boolean apply(Event event) {
            if (row.isEmpty() || event.kind() == Kind.NOTHING) {
                return false;
            }
            MessageState r = row.get();
            if (event.kind() == Kind.DELETED) {
                row = Optional.empty();
                lastWriter = Writer.SOMEONE_ELSE;
                return true;
            }
            Instant at = NOW.plusSeconds(event.offsetSeconds());
            boolean leaseRanOut = r.leaseUntil() == null || !r.leaseUntil().isAfter(at);
            boolean heldBySomeoneElse = r.leaseToken() != null && !r.leaseToken().equals(OUR_TOKEN)
                    && r.isHeldBy(r.leaseToken());
            Optional<MessageState> next = switch (event.kind()) {
                case OTHER_WORKER_CLAIMS -> r.status().isLeasable() && leaseRanOut
                        ? Optional.of(new MessageState(r.id(), r.status(), new UUID(2, ++claims), at.plus(LEASE),
                                r.version(), r.attempts() + 1))
                        : Optional.empty();
                case OTHER_WORKER_TRANSITIONS -> heldBySomeoneElse
                        ? Optional.of(write(queue, TRANSITIONS.get(event.variant()), r, at))
                        : Optional.empty();
                case OPERATOR_DEAD_LETTERS -> r.status().isLeasable()
                        ? Optional.of(operator(r, MessageStatus.DEAD_LETTERED, r.attempts()))
                        : Optional.empty();
                case OPERATOR_REPLAYS -> r.status().isTerminal()
                        ? Optional.of(operator(r, MessageStatus.PENDING, 0))
                        : Optional.empty();
                case OUR_EARLIER_WRITE_COMMITS -> r.isHeldBy(OUR_TOKEN)
                        ? Optional.of(write(queue, ours, r, at))
                        : Optional.empty();
                case NOTHING, DELETED -> throw new AssertionError("handled above");
            };
            if (next.isEmpty()) {
                return false;
            }
            row = next;
            lastWriter = event.kind() == Kind.OUR_EARLIER_WRITE_COMMITS ? Writer.OURS : Writer.SOMEONE_ELSE;
            return true;
        }

        private static MessageState operator(MessageState r, MessageStatus to, int attempts) {
            StatusTransition.require(r.status(), to, Actor.OPERATOR);
            return new MessageState(r.id(), to, null, null, r.version() + 1, attempts);
        }
    }

    /** What a guarded lease transition writes: target status, token kept, lease ended unless renewed. */
    static MessageState write(Queue queue, Transition transition, MessageState row, Instant at) {
        MessageStatus target = transition.targetStatus(queue, row.status());
        StatusTransition.require(row.status(), target, Actor.WORKER);
        Instant until = transition instanceof Transition.RenewLease renew ? at.plus(renew.duration()) : null;
        long version = target == row.status() ? row.version() : row.version() + 1;
        int attempts = transition instanceof Transition.Release ? Math.max(0, row.attempts() - 1) : row.attempts();
        return new MessageState(row.id(), target, row.leaseToken(), until, version, attempts);
    }
}
