package dev.dispatcher.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy for fault injection: forwards every accepted connection to a target address.
 *
 * <p>{@link #cut()} closes all current connections at once and closes every new one immediately until
 * {@link #restore()}; {@link #delay(Duration)} adds latency before each forwarded chunk. The proxy listens on
 * {@code 127.0.0.1} only. Each connection uses two daemon threads named {@code tcp-proxy-<port>-*} that do
 * blocking I/O: this is test infrastructure, never reactive main code. All methods are thread-safe.
 */
public final class TcpProxy implements AutoCloseable {

  private static final String LOOPBACK = "127.0.0.1";
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  private final ServerSocket server;
  private final Set<ProxyConnection> connections = ConcurrentHashMap.newKeySet();
  private final AtomicInteger connectionIds = new AtomicInteger();
  private volatile InetSocketAddress target;
  private volatile boolean cut;
  private volatile Duration latency = Duration.ZERO;
  private volatile boolean closed;

  private TcpProxy(int listenPort, InetSocketAddress target) {
    try {
      this.server = new ServerSocket(listenPort, 128, InetAddress.getByName(LOOPBACK));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + LOOPBACK + ":" + listenPort, e);
    }
    this.target = target;
    Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + port() + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts a proxy on an ephemeral loopback port forwarding to {@code targetHost:targetPort}. */
  public static TcpProxy start(String targetHost, int targetPort) {
    return start(0, targetHost, targetPort);
  }

  /** Starts a proxy on {@code listenPort} (0 for an ephemeral port) forwarding to {@code targetHost:targetPort}. */
  public static TcpProxy start(int listenPort, String targetHost, int targetPort) {
    Objects.requireNonNull(targetHost, "targetHost");
    return new TcpProxy(listenPort, InetSocketAddress.createUnresolved(targetHost, targetPort));
  }

  /**
   * Starts a proxy with no target yet: connections are closed at once until {@link #forwardTo} is called. Lets a
   * broker advertise the proxy's port before the broker's own port is known.
   */
  static TcpProxy unrouted() {
    return new TcpProxy(0, null);
  }

  void forwardTo(String targetHost, int targetPort) {
    this.target = InetSocketAddress.createUnresolved(targetHost, targetPort);
  }

  /** The loopback address clients connect to. */
  public String host() {
    return LOOPBACK;
  }

  /** The port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** Closes all current connections and closes new ones immediately until {@link #restore()}. */
  public void cut() {
    cut = true;
    connections.forEach(ProxyConnection::close);
  }

  /** Forwards new connections again after {@link #cut()}. */
  public void restore() {
    cut = false;
  }

  /** Delays every forwarded chunk by {@code latency}, in both directions; {@link Duration#ZERO} removes it. */
  public void delay(Duration latency) {
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative, but was " + latency);
    }
    this.latency = latency;
  }

  /** The number of client connections currently forwarded. */
  public int activeConnections() {
    return connections.size();
  }

  /** Stops listening and closes every connection. */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    connections.forEach(ProxyConnection::close);
  }

  @Override
  public String toString() {
    return "TcpProxy[" + host() + ":" + port() + " -> " + target + (cut ? ", cut" : "") + "]";
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // server socket closed
      }
      InetSocketAddress destination = target;
      if (cut || destination == null) {
        closeQuietly(client);
        continue;
      }
      connect(client, destination);
    }
  }

  private void connect(Socket client, InetSocketAddress destination) {
    Socket upstream = new Socket();
    try {
      upstream.connect(new InetSocketAddress(destination.getHostString(), destination.getPort()),
          CONNECT_TIMEOUT_MILLIS);
      client.setTcpNoDelay(true);
      upstream.setTcpNoDelay(true);
    } catch (IOException e) {
      closeQuietly(client);
      closeQuietly(upstream);
      return;
    }
    String name = "tcp-proxy-" + port() + "-" + connectionIds.incrementAndGet();
    ProxyConnection connection = new ProxyConnection(name, client, upstream, () -> latency, connections::remove);
    connections.add(connection);
    if (cut || closed) {
      // cut() may have run between the check in acceptLoop and add(): never leave a connection open after it
      connection.close();
      return;
    }
    connection.start();
  }

  static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // nothing left to do
    }
  }
}
