package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.domain.FailureKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Fault injection at hand-off: wraps a real {@link RecordPublisher} and fails the first {@code k} hand-offs of
 * chosen message ids (read from the {@code message-id} header) with a transient record failure ({@link #FAILED}), without
 * sending them. Honours the {@code ordered} contract: in an ordered lane, the records before the first failing one
 * are really published through the wrapped publisher, and the ones after it are {@code NotAttempted}; in an
 * unordered lane every record that is not failed is published. Thread-safe.
 */
final class FlakyPublisher implements RecordPublisher {

    static final String INJECTED = "injected";
    /** What an injected failure reports: a transient failure of the record alone. */
    static final PublishResult FAILED = new PublishResult.Failed(new SendFailure(FailureKind.TRANSIENT,
            SendFailure.Scope.RECORD, PublishFailureCause.OTHER, INJECTED));

    private final RecordPublisher delegate;
    /** Message id -> how many hand-offs to fail. */
    private final Map<String, Integer> failFirst;
    private final Map<String, AtomicInteger> injected = new ConcurrentHashMap<>();
    private final Map<String, List<Instant>> handOffs = new ConcurrentHashMap<>();

    /** Fails the first {@code failFirst.get(id)} hand-offs of each id ({@link Integer#MAX_VALUE}: always). */
    FlakyPublisher(RecordPublisher delegate, Map<String, Integer> failFirst) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.failFirst = Map.copyOf(failFirst);
    }

    /** Fails the first {@code k} hand-offs of each of {@code ids}. */
    static FlakyPublisher failing(RecordPublisher delegate, Set<String> ids, int k) {
        Map<String, Integer> plan = new ConcurrentHashMap<>();
        ids.forEach(id -> plan.put(id, k));
        return new FlakyPublisher(delegate, plan);
    }

    /** Failures injected so far for {@code id}. */
    int injected(String id) {
        AtomicInteger n = injected.get(id);
        return n == null ? 0 : n.get();
    }

    /** Ids that had at least one failure injected. */
    Set<String> injectedIds() {
        return Set.copyOf(injected.keySet());
    }

    /** When each hand-off of {@code id} happened (injected failures and real sends), in order. */
    List<Instant> handOffTimes(String id) {
        List<Instant> times = handOffs.get(id);
        return times == null ? List.of() : List.copyOf(times);
    }

    @Override
    public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        return Mono.defer(() -> ordered ? publishOrdered(records, pace) : publishUnordered(records, pace))
                .publishOn(Schedulers.parallel());
    }

    private Mono<List<PublishResult>> publishOrdered(List<OutboundRecord> records, Pace pace) {
        int firstFailing = -1;
        for (int i = 0; i < records.size(); i++) {
            if (shouldFail(id(records.get(i)))) {
                firstFailing = i;
                break;
            }
        }
        if (firstFailing < 0) {
            records.forEach(r -> handedOff(id(r)));
            return delegate.publish(records, true, pace);
        }
        int failing = firstFailing;
        List<OutboundRecord> prefix = records.subList(0, failing);
        prefix.forEach(r -> handedOff(id(r)));
        return delegate.publish(prefix, true, pace).map(prefixResults -> {
            List<PublishResult> results = new ArrayList<>(records.size());
            results.addAll(prefixResults);
            boolean prefixPublished = prefixResults.stream().allMatch(r -> r instanceof PublishResult.Sent);
            if (prefixPublished) {
                String id = id(records.get(failing));
                handedOff(id);
                injected.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                results.add(FAILED);
            } else {
                // The wrapped publisher already stopped the run: the failing record was never reached.
                results.add(new PublishResult.NotSent("an earlier record of the same key failed"));
            }
            for (int i = failing + 1; i < records.size(); i++) {
                results.add(new PublishResult.NotSent("an earlier record of the same key failed"));
            }
            return results;
        });
    }

    private Mono<List<PublishResult>> publishUnordered(List<OutboundRecord> records, Pace pace) {
        PublishResult[] results = new PublishResult[records.size()];
        List<OutboundRecord> toSend = new ArrayList<>(records.size());
        List<Integer> positions = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            String id = id(records.get(i));
            handedOff(id);
            if (shouldFail(id)) {
                injected.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                results[i] = FAILED;
            } else {
                toSend.add(records.get(i));
                positions.add(i);
            }
        }
        return delegate.publish(toSend, false, pace).map(sent -> {
            for (int j = 0; j < sent.size(); j++) {
                results[positions.get(j)] = sent.get(j);
            }
            return List.of(results);
        });
    }

    private boolean shouldFail(String id) {
        Integer k = failFirst.get(id);
        return k != null && injected(id) < k;
    }

    private void handedOff(String id) {
        handOffs.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(Instant.now());
    }

    private static String id(OutboundRecord record) {
        return record.headers().get("message-id");
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        return delegate.probe(timeout);
    }

    @Override
    public Mono<Optional<SendFailure>> checkTopic(String topic) {
        return delegate.checkTopic(topic);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
