package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The connection cap: a connection past it is closed at once and counted; one that closes makes room. */
class ConnectionCapTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicLong nanos = new AtomicLong();
    private final ConnectionCap cap = new ConnectionCap(2, meters, nanos::get);

    @Test
    void aConnectionPastTheCapIsClosedAtOnceAndCountedWhileTheOpenOnesStayOpen() {
        EmbeddedChannel first = new EmbeddedChannel();
        EmbeddedChannel second = new EmbeddedChannel();
        EmbeddedChannel third = new EmbeddedChannel();

        assertThat(cap.admit(first)).isTrue();
        assertThat(cap.admit(second)).isTrue();
        assertThat(cap.admit(third)).isFalse();

        assertThat(third.isOpen()).as("closed before a byte is read").isFalse();
        assertThat(first.isOpen() && second.isOpen()).as("the open ones are untouched").isTrue();
        assertThat(meters.counter(ConnectionCap.REFUSED_METRIC).count()).isEqualTo(1);
        assertThat(cap.open()).isEqualTo(2);
    }

    @Test
    void aClosedConnectionMakesRoomForTheNext() {
        EmbeddedChannel first = new EmbeddedChannel();
        cap.admit(first);
        cap.admit(new EmbeddedChannel());

        first.close();

        assertThat(cap.open()).isEqualTo(1);
        assertThat(cap.admit(new EmbeddedChannel())).isTrue();
        assertThat(meters.counter(ConnectionCap.REFUSED_METRIC).count()).isZero();
    }
}
