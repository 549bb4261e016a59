package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.observe.AuthFailureCounter.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class BasicUserAuthenticationTest {

    private static final String HASH = "{bcrypt}" + new BCryptPasswordEncoder(5).encode("right");

    /** The stored hashes each check compared against. */
    private final List<String> compared = new ArrayList<>();
    private final PasswordEncoder recording = new PasswordEncoder() {
        private final PasswordEncoder delegate = PasswordEncoderFactories.createDelegatingPasswordEncoder();

        @Override
        public String encode(CharSequence raw) {
            return delegate.encode(raw);
        }

        @Override
        public boolean matches(CharSequence raw, String stored) {
            compared.add(stored);
            return delegate.matches(raw, stored);
        }
    };
    private final BasicUserAuthentication basic = new BasicUserAuthentication(
            new MapReactiveUserDetailsService(User.withUsername("demo").password(HASH).roles("VIEWER").build()),
            List.of(HASH), recording, Schedulers.immediate());

    @Test
    void anUnknownNameIsCheckedAgainstADummyHashOfTheSameCost() {
        StepVerifier.create(basic.authenticate(UsernamePasswordAuthenticationToken.unauthenticated("nosuchuser", "x")))
                .expectErrorSatisfies(e -> assertThat(((LoginFailure) e).reason()).isEqualTo(Reason.UNKNOWN_USER))
                .verify(Duration.ofSeconds(10));

        assertThat(compared).singleElement().asString().startsWith("{bcrypt}$2a$05$").isNotEqualTo(HASH);
    }

    @Test
    void aKnownNameWithAWrongPasswordIsBadCredentialsAndTheRightOneSignsIn() {
        StepVerifier.create(basic.authenticate(UsernamePasswordAuthenticationToken.unauthenticated("demo", "wrong")))
                .expectErrorSatisfies(e -> assertThat(((LoginFailure) e).reason()).isEqualTo(Reason.BAD_CREDENTIALS))
                .verify(Duration.ofSeconds(10));
        StepVerifier.create(basic.authenticate(UsernamePasswordAuthenticationToken.unauthenticated("demo", "right")))
                .assertNext(a -> {
                    assertThat(a.isAuthenticated()).isTrue();
                    assertThat(a.getName()).isEqualTo("demo");
                    assertThat(a.getCredentials()).isNull();
                })
                .expectComplete().verify(Duration.ofSeconds(10));
        assertThat(compared).containsExactly(HASH, HASH);
    }

    @Test
    void theDummyIsHashedLikeTheConfiguredPasswords() {
        PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();
        assertThat(BasicUserAuthentication.dummyHash(List.of("{noop}a", HASH,
                "{bcrypt}" + new BCryptPasswordEncoder(6).encode("b")), encoder)).startsWith("{bcrypt}$2a$06$");
        assertThat(BasicUserAuthentication.dummyHash(List.of("{noop}a", "{noop}b"), encoder)).startsWith("{noop}");
        assertThat(BasicUserAuthentication.dummyHash(List.of(), encoder)).startsWith("{bcrypt}$2a$10$");
        assertThat(BasicUserAuthentication.dummyHash(List.of("{noop}a"), encoder)).as("a fresh secret each time")
                .isNotEqualTo(BasicUserAuthentication.dummyHash(List.of("{noop}a"), encoder));
    }
}
