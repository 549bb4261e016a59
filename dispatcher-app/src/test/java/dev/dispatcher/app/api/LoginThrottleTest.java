package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ManualClock;
import dev.dispatcher.app.config.SecurityProperties;
import dev.dispatcher.app.observe.AuthFailureCounter;
import dev.dispatcher.app.observe.AuthFailureCounter.Reason;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {

    private final ManualClock clock = new ManualClock();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final LoginThrottle throttle = new LoginThrottle(
            new SecurityProperties.AuthFailures(2, Duration.ofMinutes(1)), new AuthFailureCounter(meters),
            new SecurityProblems(), clock);

    @Test
    void anAddressPastTheLimitIsThrottledForEveryNameAndOthersAreNot() {
        throttle.failed("10.0.0.1", "demo", Reason.BAD_CREDENTIALS);
        throttle.failed("10.0.0.1", "nosuchuser", Reason.UNKNOWN_USER);

        assertThat(throttle.blockedFor("10.0.0.1", null)).as("the address, for any credentials")
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(throttle.blockedFor("10.0.0.1", "operator")).as("the address, for any name")
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(throttle.blockedFor("10.0.0.2", "demo")).as("another client, the same name").isZero();

        assertThat(meters.get(AuthFailureCounter.NAME).tag("reason", "bad_credentials").counter().count()).isEqualTo(1);
        assertThat(meters.get(AuthFailureCounter.NAME).tag("reason", "unknown_user").counter().count()).isEqualTo(1);
        assertThat(meters.get(AuthFailureCounter.NAME).tag("reason", "throttled").counter().count())
                .as("registered before the first one").isZero();
    }

    @Test
    void aGuesserThrottlesItselfNotTheUserOnAnotherAddress() {
        throttle.failed("10.0.0.6", "demo", Reason.BAD_CREDENTIALS);
        throttle.failed("10.0.0.6", "demo", Reason.BAD_CREDENTIALS);

        assertThat(throttle.blockedFor("10.0.0.6", "demo")).as("the guesser").isEqualTo(Duration.ofMinutes(1));
        assertThat(throttle.blockedFor("10.0.0.7", "demo")).as("the user elsewhere").isZero();
    }

    @Test
    void aNameGuessedFromManyAddressesIsThrottledExceptWhereItSignedInRecently() {
        throttle.signedIn("10.0.9.9", "demo");
        int nameLimit = 2 * LoginThrottle.NAME_LIMIT_FACTOR;
        for (int i = 1; i < nameLimit; i++) {
            throttle.failed("10.0.1." + i, "demo", Reason.BAD_CREDENTIALS);
        }
        assertThat(throttle.blockedFor("10.0.2.1", "demo")).as("one failure short of the name's limit").isZero();
        clock.advance(Duration.ofSeconds(10));
        throttle.failed("10.0.1.99", "demo", Reason.BAD_CREDENTIALS);

        assertThat(throttle.blockedFor("10.0.2.1", "demo")).as("the name, from a new address")
                .isEqualTo(Duration.ofSeconds(50));
        assertThat(throttle.blockedFor("10.0.2.1", "operator")).as("that address, for another name").isZero();
        assertThat(throttle.blockedFor("10.0.9.9", "demo")).as("where the user signed in").isZero();

        clock.advance(LoginThrottle.SIGNED_IN_FOR);
        for (int i = 1; i <= nameLimit; i++) {
            throttle.failed("10.0.3." + i, "demo", Reason.BAD_CREDENTIALS);
        }
        assertThat(throttle.blockedFor("10.0.9.9", "demo")).as("a sign-in a day old no longer counts")
                .isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void aSignInForgetsItsAddressAndNamesFailuresButNotItsAddresss() {
        throttle.failed("10.0.0.8", "demo", Reason.BAD_CREDENTIALS);
        throttle.signedIn("10.0.0.8", "demo");
        throttle.failed("10.0.0.9", "operator", Reason.BAD_CREDENTIALS);
        throttle.signedIn("10.0.0.9", "demo"); // an account of its own does not clear a guesser's address

        assertThat(throttle.blockedFor("10.0.0.8", "demo")).isZero();
        throttle.failed("10.0.0.9", "operator", Reason.BAD_CREDENTIALS);
        assertThat(throttle.blockedFor("10.0.0.9", "demo")).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void anIpv6ClientIsCountedByItsSlash64() throws Exception {
        assertThat(LoginThrottle.clientKey(address("2001:db8:1:2:aaaa::1")))
                .isEqualTo(LoginThrottle.clientKey(address("2001:db8:1:2:bbbb::9"))).isEqualTo("20010db800010002::/64");
        assertThat(LoginThrottle.clientKey(address("2001:db8:1:3::1"))).isEqualTo("20010db800010003::/64");
        assertThat(LoginThrottle.clientKey(address("192.0.2.7"))).isEqualTo("192.0.2.7");
        assertThat(LoginThrottle.clientKey(null)).isEqualTo("unknown");
    }

    @Test
    void theUserNameIsReadFromBasicCredentialsOnly() {
        assertThat(LoginThrottle.basicUserName("Basic " + base64("demo:pw:with:colons"))).isEqualTo("demo");
        assertThat(LoginThrottle.basicUserName("basic " + base64("demo:pw"))).isEqualTo("demo");
        assertThat(LoginThrottle.basicUserName("Basic " + base64("no-colon"))).isNull();
        assertThat(LoginThrottle.basicUserName("Basic %%%")).isNull();
        assertThat(LoginThrottle.basicUserName("Bearer abc")).isNull();
        assertThat(LoginThrottle.basicUserName(null)).isNull();
    }

    private static InetSocketAddress address(String ip) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), 1234);
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
