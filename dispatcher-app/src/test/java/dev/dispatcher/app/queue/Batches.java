package dev.dispatcher.app.queue;

import java.util.List;

/** Claimed batches as a strategy sees them, for strategy tests that run without a claim loop. */
public final class Batches {

    private Batches() {
    }

    /** {@code messages} as a batch of a loop that is draining ({@code stopping}) or not; writes are ignored. */
    public static <M> BatchStrategy.Batch<M> of(List<M> messages, boolean stopping) {
        return new BatchStrategy.Batch<>() {
            @Override
            public List<M> messages() {
                return messages;
            }

            @Override
            public boolean stopping() {
                return stopping;
            }

            @Override
            public void written(M message) {
            }
        };
    }
}
