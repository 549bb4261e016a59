package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One client's share of ingest's request slots: never more than it, and an entry only while a slot is held. */
class ClientSharesTest {

    @Test
    void aClientTakesAtMostItsShareAndGetsASlotBackWhenOneIsReleased() {
        ClientShares shares = new ClientShares(3);
        for (int i = 0; i < 3; i++) {
            assertThat(shares.tryTake("a")).isTrue();
        }
        assertThat(shares.tryTake("a")).as("past its share").isFalse();
        assertThat(shares.held("a")).as("a refusal takes nothing").isEqualTo(3);
        assertThat(shares.tryTake("b")).as("another client's share is its own").isTrue();

        shares.release("a");
        assertThat(shares.tryTake("a")).isTrue();
    }

    @Test
    void aClientHoldingNoSlotHasNoEntry() {
        ClientShares shares = new ClientShares(2);
        shares.tryTake("a");
        shares.tryTake("a");
        shares.tryTake("b");
        assertThat(shares.clients()).isEqualTo(2);

        shares.release("a");
        shares.release("b");
        assertThat(shares.clients()).isEqualTo(1);
        shares.release("a");
        assertThat(shares.clients()).isZero();
        shares.release("a"); // a release without a take changes nothing
        assertThat(shares.held("a")).isZero();
    }

    @Test
    void racingTakesNeverAdmitMoreThanTheShare() throws Exception {
        ClientShares shares = new ClientShares(5);
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> takers = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 64; i++) {
                takers.add(CompletableFuture.runAsync(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (shares.tryTake("a")) {
                        admitted.incrementAndGet();
                    }
                }, threads));
            }
            start.countDown();
            CompletableFuture.allOf(takers.toArray(CompletableFuture[]::new)).join();
        }
        assertThat(admitted.get()).isLessThanOrEqualTo(5).isEqualTo(shares.held("a"));
    }

    @Test
    void aShareBelowOneIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ClientShares(0));
    }
}
