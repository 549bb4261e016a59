package dev.dispatcher.load.blackbox;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A health flood: {@code clients} callers from one address, each calling {@code GET /actuator/health} (public, no
 * credentials) again as soon as it is answered, over a connection of its own (HTTP/1.1 keeps one per call in
 * flight), until {@link #stop}. Counted by status. One virtual thread per caller.
 */
final class HealthFlood implements AttackWindows.Attack {

    private final HttpClient http;
    private final URI uri;
    private final int callers;
    private final StatusTally answers = new StatusTally();
    private final RepeatingClients clients = new RepeatingClients();

    HealthFlood(RawHttp.Target target, InetAddress from, int clients) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).localAddress(from)
                .connectTimeout(Duration.ofSeconds(10)).build();
        this.uri = URI.create(target.baseUrl() + "/actuator/health");
        this.callers = clients;
    }

    /** Starts the callers. */
    @Override
    public void start() {
        clients.start(callers, "health-flood", this::call);
    }

    /** Stops the callers after their call in flight and returns how every call was answered. */
    @Override
    public StatusTally stop() throws InterruptedException {
        clients.stop();
        return answers;
    }

    private void call() {
        long started = System.nanoTime();
        int status;
        try {
            status = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            status = StatusTally.NO_ANSWER;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            clients.stopAsking();
            return;
        }
        answers.add(status, (System.nanoTime() - started) / 1_000_000);
    }
}
