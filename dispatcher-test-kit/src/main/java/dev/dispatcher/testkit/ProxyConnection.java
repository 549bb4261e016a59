package dev.dispatcher.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One client connection of a {@link TcpProxy}: two daemon threads copy bytes in each direction.
 *
 * <p>End of stream in one direction half-closes the other side; the connection is finished (and reported to
 * {@code onFinished}) when both directions ended or {@link #close()} was called, whichever comes first.
 */
final class ProxyConnection {

  private static final int CHUNK_SIZE = 16 * 1024;

  private final String name;
  private final Socket client;
  private final Socket upstream;
  private final Supplier<Duration> latency;
  private final Consumer<ProxyConnection> onFinished;
  private final AtomicInteger openDirections = new AtomicInteger(2);
  private final AtomicBoolean closed = new AtomicBoolean();

  ProxyConnection(String name, Socket client, Socket upstream, Supplier<Duration> latency,
      Consumer<ProxyConnection> onFinished) {
    this.name = name;
    this.client = client;
    this.upstream = upstream;
    this.latency = latency;
    this.onFinished = onFinished;
  }

  void start() {
    startPump(name + "-up", client, upstream);
    startPump(name + "-down", upstream, client);
  }

  void close() {
    if (closed.compareAndSet(false, true)) {
      TcpProxy.closeQuietly(client);
      TcpProxy.closeQuietly(upstream);
      onFinished.accept(this);
    }
  }

  private void startPump(String threadName, Socket from, Socket to) {
    Thread pump = new Thread(() -> pump(from, to), threadName);
    pump.setDaemon(true);
    pump.start();
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[CHUNK_SIZE];
    // the streams are not closed here: closing a socket's stream closes the socket, and the other direction
    // may still be running
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int read;
      while ((read = in.read(buffer)) != -1) {
        pause(latency.get());
        out.write(buffer, 0, read);
        out.flush();
      }
      to.shutdownOutput();
      if (openDirections.decrementAndGet() == 0) {
        close();
      }
    } catch (IOException | InterruptedException e) {
      // a reset or a cut ends both directions at once
      close();
    }
  }

  private static void pause(Duration latency) throws InterruptedException {
    if (!latency.isZero()) {
      Thread.sleep(latency); // the proxy's own pump thread injecting latency
    }
  }
}
