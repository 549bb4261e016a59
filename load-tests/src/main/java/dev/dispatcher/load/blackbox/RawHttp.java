package dev.dispatcher.load.blackbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * One HTTP/1.1 request over a plain socket from a chosen client address, so the harness writes every byte as a
 * hostile client does: a path left percent-encoded, a body that never completes, a body written while the answer is
 * read. Blocking: each exchange belongs to one thread of its own (a virtual thread), or to a scheduler that only
 * writes a few bytes.
 */
final class RawHttp implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    private RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = socket.getInputStream();
    }

    /**
     * A connection from {@code from} to {@code target}; reading the status waits at most {@code readTimeout}.
     *
     * @throws IOException when the service does not accept the connection
     */
    static RawHttp open(Target target, InetAddress from, Duration readTimeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(target.host(), target.port()), 10_000);
            socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
            socket.setTcpNoDelay(true);
            return new RawHttp(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * The head of a request: {@code method path HTTP/1.1}, {@code Host}, {@code authorization}, {@code Content-Type}
     * and {@code Content-Length}.
     */
    static byte[] head(String method, String path, Target target, String authorization, String contentType,
            long contentLength) {
        return (method + " " + path + " HTTP/1.1\r\nHost: " + target.host().getHostAddress() + ":" + target.port()
                + "\r\nAuthorization: " + authorization + "\r\nContent-Type: " + contentType
                + "\r\nContent-Length: " + contentLength + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes {@code bytes} and flushes them. */
    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Writes {@code bytes} in chunks of 64 KiB, as a client streaming a large body does. */
    void sendChunked(byte[] bytes) throws IOException {
        int chunk = 64 * 1024;
        for (int at = 0; at < bytes.length; at += chunk) {
            out.write(bytes, at, Math.min(chunk, bytes.length - at));
        }
        out.flush();
    }

    /**
     * The status code of the answer's status line, or {@link StatusTally#NO_ANSWER} when the connection closed (or
     * was reset) first.
     *
     * @throws java.net.SocketTimeoutException when no status line came within the read timeout
     */
    int readStatus() throws IOException {
        StringBuilder line = new StringBuilder();
        try {
            for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
                line.append((char) b);
            }
        } catch (java.net.SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            return StatusTally.NO_ANSWER; // reset by the peer: closed without an answer
        }
        String[] parts = line.toString().split(" ");
        return parts.length >= 2 && parts[0].startsWith("HTTP/") ? Integer.parseInt(parts[1].strip())
                : StatusTally.NO_ANSWER;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a socket the peer may have reset already
        }
    }

    /**
     * The service as the hostile clients reach it: its loopback address and port, its API token and an operator's
     * HTTP Basic credentials.
     */
    record Target(InetAddress host, int port, String token, String user, String password) {

        String bearer() {
            return "Bearer " + token;
        }

        String basic(String secret) {
            return "Basic " + Base64.getEncoder().encodeToString((user + ":" + secret)
                    .getBytes(StandardCharsets.UTF_8));
        }

        /** {@code http://host:port}, which every client of the hostile run uses. */
        String baseUrl() {
            return "http://" + host.getHostAddress() + ":" + port;
        }
    }
}
