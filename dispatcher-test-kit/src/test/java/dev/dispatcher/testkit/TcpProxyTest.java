package dev.dispatcher.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {

  private EchoServer echo;
  private TcpProxy proxy;

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = TcpProxy.start("localhost", echo.port());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  @Test
  void forwardsBytesBothWays() throws IOException {
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "hello")).isEqualTo("hello");
      assertThat(roundTrip(socket, "again")).isEqualTo("again");
      assertThat(proxy.activeConnections()).isEqualTo(1);
    }
  }

  @Test
  void cutBreaksOpenConnectionsAndRefusesNewOnesUntilRestored() throws Exception {
    try (Socket open = connect()) {
      assertThat(roundTrip(open, "before")).isEqualTo("before");

      proxy.cut();

      assertThat(proxy.activeConnections()).isZero();
      assertThat(readsEndOfStream(open)).isTrue();
      try (Socket refused = connect()) {
        assertThat(readsEndOfStream(refused)).isTrue();
      }
    }

    proxy.restore();

    try (Socket restored = connect()) {
      assertThat(roundTrip(restored, "after")).isEqualTo("after");
    }
  }

  @Test
  void delayAddsLatencyUntilRemoved() throws IOException {
    try (Socket socket = connect()) {
      Duration latency = Duration.ofSeconds(1);
      Duration delayedRoundTrip = latency.multipliedBy(2); // one chunk each way
      proxy.delay(latency);
      long start = System.nanoTime();
      assertThat(roundTrip(socket, "slow")).isEqualTo("slow");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(delayedRoundTrip);

      proxy.delay(Duration.ZERO);
      start = System.nanoTime();
      assertThat(roundTrip(socket, "fast")).isEqualTo("fast");
      // faster than any round trip that still carried the latency: a wide margin for a loaded machine
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(delayedRoundTrip);
    }
  }

  @Test
  void rejectsNegativeLatency() {
    assertThatThrownBy(() -> proxy.delay(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket(proxy.host(), proxy.port());
    socket.setSoTimeout(5_000);
    return socket;
  }

  private static String roundTrip(Socket socket, String message) throws IOException {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    byte[] received = socket.getInputStream().readNBytes(bytes.length);
    return new String(received, StandardCharsets.UTF_8);
  }

  /** True when the peer closed or reset the connection; a read timeout means it is still open. */
  private static boolean readsEndOfStream(Socket socket) {
    try {
      socket.getOutputStream().write(1);
      return socket.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** Echoes every byte back, one daemon thread per connection. */
  private static final class EchoServer implements AutoCloseable {

    private final ServerSocket server = new ServerSocket(0);

    EchoServer() throws IOException {
      Thread.ofPlatform().daemon().name("echo-accept").start(this::accept);
    }

    int port() {
      return server.getLocalPort();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          Thread.ofPlatform().daemon().name("echo").start(() -> echo(socket));
        } catch (IOException e) {
          return;
        }
      }
    }

    private static void echo(Socket socket) {
      try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
        in.transferTo(out);
      } catch (IOException ignored) {
        // the proxy cut the connection
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
