package dev.dispatcher.testkit;

import java.util.Map;

/**
 * A dedicated in-process broker whose clients all go through a {@link TcpProxy}, so that cutting or slowing the
 * proxy really cuts or slows client-broker traffic.
 *
 * <p>Kafka clients connect to the address the broker advertises, not to the bootstrap address, so a proxy in
 * front of a broker's port alone is bypassed after the first metadata request. This broker therefore has a second
 * client listener, {@code PROXIED}, that advertises the proxy's port; {@link #bootstrapServers()} points at the
 * proxy, and every client bootstrapped there (including {@link #createTopic} and {@link #consume}) stays behind
 * it. {@link #direct()} reaches the same broker on its own listener, never through the proxy, to set up or verify
 * state while the proxy is cut. The controller listener is not proxied. {@link #close()} stops both.
 */
public final class ProxiedKafka implements KafkaServer {

  private static final String PROXIED_LISTENER = "PROXIED";

  private final EmbeddedKafkaServer broker;
  private final TcpProxy proxy;

  private ProxiedKafka(EmbeddedKafkaServer broker, TcpProxy proxy) {
    this.broker = broker;
    this.proxy = proxy;
  }

  /** Starts a broker and its proxy. */
  public static ProxiedKafka start() {
    // the proxy listens first so that the broker can advertise its port; it forwards once the broker is up
    TcpProxy proxy = TcpProxy.unrouted();
    try {
      EmbeddedKafkaServer broker = EmbeddedKafkaServer.start(listeners(proxy));
      proxy.forwardTo("localhost", broker.boundPort(PROXIED_LISTENER));
      return new ProxiedKafka(broker, proxy);
    } catch (RuntimeException e) {
      proxy.close();
      throw e;
    }
  }

  private static Map<String, String> listeners(TcpProxy proxy) {
    String client = EmbeddedKafkaServer.CLIENT_LISTENER;
    String controller = EmbeddedKafkaServer.CONTROLLER_LISTENER;
    return Map.of(
        "listeners", client + "://localhost:0," + controller + "://localhost:0," + PROXIED_LISTENER + "://localhost:0",
        // port 0 is replaced by the bound port when the broker registers; PROXIED advertises the proxy instead
        "advertised.listeners", client + "://localhost:0," + PROXIED_LISTENER + "://" + proxy.host() + ":"
            + proxy.port(),
        "listener.security.protocol.map",
        client + ":PLAINTEXT," + controller + ":PLAINTEXT," + PROXIED_LISTENER + ":PLAINTEXT");
  }

  /** The proxy every client of {@link #bootstrapServers()} goes through. */
  public TcpProxy proxy() {
    return proxy;
  }

  /** The same broker reached without the proxy, unaffected by its faults; closed with this instance. */
  public KafkaServer direct() {
    return broker;
  }

  /** The proxy's address: clients bootstrapped here keep talking through the proxy. */
  @Override
  public String bootstrapServers() {
    return proxy.host() + ":" + proxy.port();
  }

  @Override
  public void close() {
    proxy.close();
    broker.close();
  }

  @Override
  public String toString() {
    return "ProxiedKafka[" + proxy + ", direct " + broker.bootstrapServers() + "]";
  }
}
