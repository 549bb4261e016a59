package dev.dispatcher.load.mode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sweep}: the in-process drain of N rows for each batch size x publish concurrency x in-flight batches of
 * {@link #cells()}.
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param claimLinger {@code --claim-linger-ms} of every cell
 * @param warmup {@code --warmup}: rows of one warm-up round (default {@value #DEFAULT_WARMUP}), with the service's
 *     default settings
 * @param servers the servers
 */
public record Sweep(Backlog backlog, Ordering ordering, Duration claimLinger, int warmup, Servers servers)
        implements BenchMode {

    public static final String NAME = "sweep";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 20_000;
    /** At or below this N the grid is the small one (4 cells), above it 18 cells. */
    public static final int SMALL_N = 5_000;

    @Override
    public String name() {
        return NAME;
    }

    static Sweep parse(Options o) {
        boolean quick = o.quick();
        return new Sweep(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), RelayTuning.claimLinger(o),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), Servers.parse(o));
    }

    /** One cell of the grid. */
    public record Cell(int batchSize, int concurrency, int inFlight) {
    }

    /** The grid: batch sizes x publish concurrencies x in-flight batches, small for small N. */
    public List<Cell> cells() {
        boolean small = backlog.n() <= SMALL_N;
        int[] batches = small ? new int[] {100, 500} : new int[] {250, 500, 1000};
        int[] concurrencies = small ? new int[] {64} : new int[] {16, 64};
        int[] inFlights = small ? new int[] {2, 4} : new int[] {2, 4, 8};
        List<Cell> cells = new ArrayList<>();
        for (int batch : batches) {
            for (int concurrency : concurrencies) {
                for (int inFlight : inFlights) {
                    cells.add(new Cell(batch, concurrency, inFlight));
                }
            }
        }
        return cells;
    }
}
