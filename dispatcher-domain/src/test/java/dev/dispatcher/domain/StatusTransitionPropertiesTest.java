package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import dev.dispatcher.domain.StatusTransition.Actor;

/**
 * Invariants of {@link StatusTransition}: terminal statuses absorb every worker transition, every transition a
 * worker can request from a live status is listed, and operators only replay finished messages or dead-letter live
 * ones. Status, status and actor form a small space, so jqwik checks it exhaustively.
 */
class StatusTransitionPropertiesTest {

    @Provide
    Arbitrary<Transition> transitions() {
        return Arbitraries.of(
                new Transition.Deliver(),
                new Transition.ScheduleRetry(Duration.ofSeconds(5), "boom"),
                new Transition.DeadLetter("poison"),
                new Transition.RenewLease(Duration.ofSeconds(30)),
                new Transition.Release(),
                new Transition.Release(Duration.ofSeconds(5), "topic unavailable"));
    }

    @Property
    void noWorkerTransitionLeavesATerminalStatus(@ForAll MessageStatus from, @ForAll MessageStatus to) {
        if (from.isTerminal()) {
            assertThat(StatusTransition.find(from, to, Actor.WORKER)).isEmpty();
        }
    }

    @Example
    void everyWorkerTransitionStartsFromALiveStatus() {
        for (StatusTransition transition : StatusTransition.values()) {
            if (transition.actor() == Actor.WORKER) {
                boolean fromSomeLiveStatus = Arrays.stream(MessageStatus.values())
                        .filter(MessageStatus::isLeasable)
                        .anyMatch(from -> StatusTransition.find(from, transition.to(), Actor.WORKER)
                                .filter(transition::equals).isPresent());
                assertThat(fromSomeLiveStatus).as("%s starts from a live status", transition).isTrue();
            }
        }
    }

    @Property
    void everyStatusATransitionRequestsFromALiveStatusIsLegalForAWorker(
            @ForAll("transitions") Transition requested, @ForAll Queue queue, @ForAll MessageStatus from) {
        MessageStatus target = requested.targetStatus(queue, from);

        Optional<StatusTransition> legal = StatusTransition.find(from, target, Actor.WORKER);

        if (from.isLeasable()) {
            assertThat(legal).as("%s of a %s %s message to %s", requested.tag(), queue.tag(), from, target)
                    .hasValueSatisfying(t -> {
                        assertThat(t.actor()).isEqualTo(Actor.WORKER);
                        assertThat(t.to()).isEqualTo(target);
                    });
        } else {
            assertThat(legal).isEmpty();
        }
    }

    @Example
    void everyListedWorkerTransitionIsOneATransitionCanRequest() {
        for (StatusTransition listed : StatusTransition.values()) {
            if (listed.actor() != Actor.WORKER) {
                continue;
            }
            boolean requestable = false;
            for (MessageStatus from : MessageStatus.values()) {
                for (Queue queue : Queue.values()) {
                    for (Transition requested : transitions().allValues().orElseThrow().toList()) {
                        MessageStatus target = requested.targetStatus(queue, from);
                        requestable |= from.isLeasable()
                                && StatusTransition.find(from, target, Actor.WORKER).filter(listed::equals).isPresent();
                    }
                }
            }
            assertThat(requestable).as("%s is requested by some transition", listed).isTrue();
        }
    }

    @Property
    void operatorReplayIsOnlyFromATerminalStatusToPending(@ForAll MessageStatus from, @ForAll MessageStatus to) {
        boolean isReplay = StatusTransition.find(from, to, Actor.OPERATOR)
                .filter(StatusTransition.REPLAY::equals).isPresent();

        assertThat(isReplay).isEqualTo(from.isTerminal() && to == MessageStatus.PENDING);
    }

    @Property
    void manualDeadLetterIsOnlyFromALiveStatus(@ForAll MessageStatus from, @ForAll MessageStatus to) {
        boolean isManualDeadLetter = StatusTransition.find(from, to, Actor.OPERATOR)
                .filter(StatusTransition.MANUAL_DEAD_LETTER::equals).isPresent();

        assertThat(isManualDeadLetter).isEqualTo(from.isLeasable() && to == MessageStatus.DEAD_LETTERED);
    }

    @Property
    void operatorMayOnlyReplayOrDeadLetterByHand(@ForAll MessageStatus from, @ForAll MessageStatus to) {
        Optional<StatusTransition> legal = StatusTransition.find(from, to, Actor.OPERATOR);

        legal.ifPresent(t -> assertThat(t).isIn(StatusTransition.REPLAY, StatusTransition.MANUAL_DEAD_LETTER));
        assertThat(legal.isPresent()).isEqualTo(
                (from.isTerminal() && to == MessageStatus.PENDING)
                        || (from.isLeasable() && to == MessageStatus.DEAD_LETTERED));
    }

    @Property
    void requireReturnsTheListedTransitionOrThrowsForAnUnlistedMove(
            @ForAll MessageStatus from, @ForAll MessageStatus to, @ForAll Actor by) {
        Optional<StatusTransition> listed = StatusTransition.find(from, to, by);

        if (listed.isPresent()) {
            StatusTransition required = StatusTransition.require(from, to, by);
            assertThat(required).isEqualTo(listed.get());
            assertThat(required.to()).isEqualTo(to);
            assertThat(required.actor()).isEqualTo(by);
        } else {
            assertThatExceptionOfType(IllegalStatusTransitionException.class)
                    .isThrownBy(() -> StatusTransition.require(from, to, by))
                    .satisfies(e -> {
                        assertThat(e.from()).isEqualTo(from);
                        assertThat(e.to()).isEqualTo(to);
                    })
                    .withMessageContaining(from.toString())
                    .withMessageContaining(to.toString())
                    .withMessageContaining(by.toString());
        }
    }
}
