package dev.dispatcher.load.blackbox;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;

/**
 * Token bombs: {@code bombs} clients from one address, each posting {@code POST /v1/messages/batch} whose body is
 * {@code items} empty objects ({@code [{},{},...]}) over and over until {@link #stop}; each bomb's body is written by
 * a virtual thread of its own while another reads the answer, so an answer given before the body is read counts as
 * soon as it comes. Counted by status, with the time from the head to the status line.
 */
final class TokenBombs implements AttackWindows.Attack {

    private final RawHttp.Target target;
    private final InetAddress from;
    private final int bombs;
    private final byte[] body;
    private final Duration answerWithin;
    private final StatusTally answers = new StatusTally();
    private final RepeatingClients clients = new RepeatingClients();

    TokenBombs(RawHttp.Target target, InetAddress from, int bombs, int items, Duration answerWithin) {
        this.target = target;
        this.from = from;
        this.bombs = bombs;
        this.body = body(items);
        this.answerWithin = answerWithin;
    }

    /** {@code [{},{},...]} with {@code items} empty objects: {@code 3 x items + 1} bytes. */
    static byte[] body(int items) {
        byte[] body = new byte[3 * items + 1];
        body[0] = '[';
        for (int i = 0; i < items; i++) {
            body[1 + 3 * i] = '{';
            body[2 + 3 * i] = '}';
            body[3 + 3 * i] = ',';
        }
        body[body.length - 1] = ']';
        return body;
    }

    /** The bytes of each bomb. */
    int bytes() {
        return body.length;
    }

    /** Starts the bombers. */
    @Override
    public void start() {
        clients.start(bombs, "token-bomb", this::bomb);
    }

    /** Stops the bombers after their bomb in flight and returns how every bomb was answered. */
    @Override
    public StatusTally stop() throws InterruptedException {
        clients.stop();
        return answers;
    }

    private void bomb() {
        long started = System.nanoTime();
        int status;
        try (RawHttp connection = RawHttp.open(target, from, answerWithin)) {
            connection.send(RawHttp.head("POST", "/v1/messages/batch", target, target.bearer(), "application/json",
                    body.length));
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    connection.sendChunked(body);
                } catch (IOException e) {
                    // answered before the body was read, and closed
                }
            });
            try {
                status = connection.readStatus();
            } catch (IOException e) {
                status = StatusTally.NO_ANSWER;
            }
            connection.close();
            writer.join();
        } catch (IOException e) {
            status = StatusTally.NO_ANSWER;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        answers.add(status, (System.nanoTime() - started) / 1_000_000);
    }
}
