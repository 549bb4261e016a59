package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.queue.KeyRuns;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.DispatchResult;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One lane of a hand-off as its topics' breakers let it go: the rows handed off, what the rows held back get, and
 * the topic-breaker permissions the lane holds (one call per lane and topic).
 *
 * <p>A row whose topic's breaker refuses it is held back with the topic's outage rule ({@link
 * TopicBreakers#heldBack}); in an ordered lane the rows after it are not attempted and not handed off ({@link
 * KeyRuns.Run}), so nothing overtakes it; in an unordered lane the others go. Not thread-safe: one hand-off's
 * state, settled once.
 */
final class LanePlan {

    private final PublishLanes.Lane lane;
    /** Indexes (into the lane) of the rows handed off, in lane order. */
    private final List<Integer> sent = new ArrayList<>();
    /** Each row's result: set now for rows held back, at {@link #settle} for rows handed off. */
    private final DispatchResult[] results;
    /** The topic breakers that permitted this lane, by topic. */
    private final Map<String, CircuitBreaker> permits = new LinkedHashMap<>();

    private final RecordFormat format;

    private LanePlan(PublishLanes.Lane lane, RecordFormat format) {
        this.lane = lane;
        this.results = new DispatchResult[lane.messages().size()];
        this.format = format;
    }

    /**
     * Asks each of the lane's topics' breakers once, in lane order, and holds back the rows they refuse ({@code
     * seenMissing}: the topics this hand-off's probe saw missing); the records handed off are in {@code format}.
     */
    static LanePlan of(PublishLanes.Lane lane, TopicBreakers topics, Instant now, Set<String> seenMissing,
            RecordFormat format) {
        LanePlan plan = new LanePlan(lane, format);
        Set<String> refused = new HashSet<>();
        KeyRuns.Run run = KeyRuns.run(lane.ordered());
        for (int i = 0; i < lane.messages().size(); i++) {
            ClaimedOutboxMessage m = lane.messages().get(i);
            if (run.stopped()) {
                plan.results[i] = run.notAttempted();
                continue;
            }
            String topic = m.topic();
            if (!plan.permits.containsKey(topic) && !refused.contains(topic)) {
                CircuitBreaker breaker = topics.breaker(topic);
                if (breaker.tryAcquirePermission()) {
                    plan.permits.put(topic, breaker);
                } else {
                    refused.add(topic);
                }
            }
            if (plan.permits.containsKey(topic)) {
                plan.sent.add(i);
            } else {
                plan.results[i] = run.next(topics.heldBack(topic, now, seenMissing));
            }
        }
        return plan;
    }

    PublishLanes.Lane lane() {
        return lane;
    }

    /** Whether any row goes to the publisher. */
    boolean handsOff() {
        return !sent.isEmpty();
    }

    /** The publisher's lane: the rows handed off, in order. */
    RecordPublisher.Lane records() {
        List<OutboundRecord> records = new ArrayList<>(sent.size());
        sent.forEach(i -> records.add(format.toRecord(lane.messages().get(i))));
        return new RecordPublisher.Lane(records, lane.ordered());
    }

    /**
     * What a lane's hand-off came to, for the relay-wide breaker: whether a row met the broker unavailable, and
     * whether any row was published.
     */
    record Outcome(boolean brokerFailed, boolean anySent) {
    }

    /**
     * Turns the publisher's results into each row's result and records one call per permitted topic on its
     * breaker: failed if a row met the topic unavailable, successful if a row reached Kafka's answer otherwise,
     * given back if none of the topic's rows was handed off.
     */
    Outcome settle(List<PublishResult> published, TopicBreakers topics, Instant now, Set<String> seenMissing,
            long elapsed) {
        Set<String> failedTopics = new HashSet<>();
        Set<String> answeredTopics = new HashSet<>();
        boolean brokerFailed = false;
        boolean anySent = false;
        for (int j = 0; j < sent.size(); j++) {
            int i = sent.get(j);
            String topic = lane.messages().get(i).topic();
            PublishResult result = published.get(j);
            switch (result) {
                case PublishResult.Sent s -> {
                    anySent = true;
                    answeredTopics.add(topic);
                }
                case PublishResult.Failed f -> {
                    brokerFailed |= f.failure().brokerUnavailable();
                    (f.failure().topicUnavailable() ? failedTopics : answeredTopics).add(topic);
                }
                case PublishResult.NotYet n -> { // its topic is being created: a wait, neither failed nor answered
                }
                case PublishResult.NotSent n -> {
                }
            }
            results[i] = topics.result(topic, result, now, seenMissing);
        }
        permits.forEach((topic, breaker) -> {
            if (failedTopics.contains(topic)) {
                breaker.onError(elapsed, breaker.getTimestampUnit(), TopicBreakers.unavailable());
            } else if (answeredTopics.contains(topic)) {
                breaker.onSuccess(elapsed, breaker.getTimestampUnit());
            } else {
                breaker.releasePermission();
            }
        });
        return new Outcome(brokerFailed, anySent);
    }

    /** Gives every topic permission back (the hand-off was cancelled or failed before any result). */
    void releasePermits() {
        permits.values().forEach(CircuitBreaker::releasePermission);
    }

    /** Each row's result, in lane order (after {@link #settle}, or at once if nothing was handed off). */
    List<DispatchResult> results() {
        return List.of(results);
    }
}
