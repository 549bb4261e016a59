package dev.dispatcher.app.api;

import dev.dispatcher.app.observe.AuthFailureCounter.Reason;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.ReactiveUserDetailsService;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Authenticates HTTP Basic users at the same cost whether the name exists or not.
 *
 * <p>Spring Security's {@code UserDetailsRepositoryReactiveAuthenticationManager} refuses an unknown name as soon
 * as the lookup comes back empty, without hashing anything, so an unknown name answers a bcrypt round faster than
 * a known one with a wrong password, and the answer time tells which names exist. Here a presented password is
 * always matched against a stored hash: the user's, or for an unknown name a dummy made like the configured ones
 * ({@link #dummyHash}), as Spring's servlet-side {@code DaoAuthenticationProvider} does. The match runs on
 * {@code scheduler} (bcrypt costs milliseconds of CPU: never on an event loop). Failures are {@link LoginFailure}s
 * saying whether the name was known; the client sees the same {@code 401} either way.
 */
final class BasicUserAuthentication implements ReactiveAuthenticationManager {

    /** {@code {bcrypt}$2a$10$...}: the cost is the number after the version. */
    private static final Pattern BCRYPT = Pattern.compile("\\{bcrypt}\\$2[abxy]?\\$(\\d{2})\\$");
    private static final String NOOP = "{noop}";

    private final ReactiveUserDetailsService users;
    private final PasswordEncoder encoder;
    private final String dummyHash;
    private final Scheduler scheduler;

    BasicUserAuthentication(ReactiveUserDetailsService users, Collection<String> storedPasswords,
            PasswordEncoder encoder, Scheduler scheduler) {
        this.users = users;
        this.encoder = encoder;
        this.dummyHash = dummyHash(storedPasswords, encoder);
        this.scheduler = scheduler;
    }

    @Override
    public Mono<Authentication> authenticate(Authentication presented) {
        String name = presented.getName();
        String password = presented.getCredentials() == null ? "" : presented.getCredentials().toString();
        return users.findByUsername(name)
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .publishOn(scheduler)
                .map(user -> {
                    boolean matches = encoder.matches(password, user.map(UserDetails::getPassword).orElse(dummyHash));
                    UserDetails known = user.orElseThrow(() -> new LoginFailure(Reason.UNKNOWN_USER));
                    if (!matches) {
                        throw new LoginFailure(Reason.BAD_CREDENTIALS);
                    }
                    return UsernamePasswordAuthenticationToken.authenticated(known, null, known.getAuthorities());
                });
    }

    /**
     * A hash of a random secret that costs what checking a configured password costs: bcrypt at the highest cost
     * among the configured bcrypt hashes; {@code {noop}} when every configured password is {@code {noop}} (tests and
     * demos); otherwise {@code encoder}'s default ({@code {bcrypt}}, cost 10). Give all users the same kind of hash,
     * or a name of a cheaper kind answers faster than an unknown one.
     */
    static String dummyHash(Collection<String> storedPasswords, PasswordEncoder encoder) {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        String secret = HexFormat.of().formatHex(random);
        OptionalInt cost = storedPasswords.stream().map(BCRYPT::matcher).filter(Matcher::lookingAt)
                .mapToInt(m -> Integer.parseInt(m.group(1))).max();
        if (cost.isPresent()) {
            return "{bcrypt}" + new BCryptPasswordEncoder(cost.getAsInt()).encode(secret);
        }
        if (!storedPasswords.isEmpty() && storedPasswords.stream().allMatch(p -> p.startsWith(NOOP))) {
            return NOOP + secret;
        }
        return encoder.encode(secret);
    }
}
