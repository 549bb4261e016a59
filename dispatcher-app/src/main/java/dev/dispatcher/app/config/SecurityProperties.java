package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.MASK;
import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.quoted;
import static dev.dispatcher.app.config.PropertyRules.upperCase;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationPropertiesSource;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

/**
 * {@code dispatcher.security.*}: HTTP Basic users, Bearer API tokens and the throttle of failed authentications.
 * Names are unique per list; roles are upper-cased.
 *
 * @param users HTTP Basic users ({@code dispatcher.security.users[i]})
 * @param tokens Bearer API tokens ({@code dispatcher.security.tokens[i]})
 * @param publicPrometheus whether {@code /actuator/prometheus} may be scraped without credentials (otherwise it needs
 *     VIEWER or OPERATOR)
 * @param authFailures how many failed authentications a client address or a user name may make in a window
 *     ({@code dispatcher.security.auth-failures.*})
 */
public record SecurityProperties(List<User> users, List<Token> tokens, boolean publicPrometheus,
        AuthFailures authFailures) {

    public static final boolean DEFAULT_PUBLIC_PROMETHEUS = false;

    /** Users and tokens; Prometheus scraping needs credentials; failed authentications throttled by default. */
    public SecurityProperties(List<User> users, List<Token> tokens) {
        this(users, tokens, DEFAULT_PUBLIC_PROMETHEUS, AuthFailures.defaults());
    }

    /** The binding constructor: an absent value takes its default. */
    @ConstructorBinding
    public SecurityProperties(@Nullable List<User> users, @Nullable List<Token> tokens,
            @Nullable Boolean publicPrometheus, @Nullable AuthFailures authFailures) {
        this(users, tokens, orDefault(publicPrometheus, DEFAULT_PUBLIC_PROMETHEUS).booleanValue(),
                orDefault(authFailures, AuthFailures.defaults()));
    }

    public SecurityProperties {
        users = users == null ? List.of() : List.copyOf(users);
        tokens = tokens == null ? List.of() : List.copyOf(tokens);
        Objects.requireNonNull(authFailures, DispatcherProperties.PREFIX + ".security.auth-failures");
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < users.size(); i++) {
            String path = "security.users[" + i + "]";
            User user = Objects.requireNonNull(users.get(i), DispatcherProperties.PREFIX + "." + path);
            requireName(path + ".name", user.name(), names, i);
            if (user.password() == null || !SPRING_SECURITY_PASSWORD.matcher(user.password()).matches()) {
                throw invalid(path + ".password",
                        "must be in Spring Security's {id} form, such as {bcrypt}$2a$10$... or {noop}secret",
                        user.password() == null ? "absent" : "a value without an {id} prefix");
            }
            requireRoles(path + ".roles", user.roles());
        }
        names.clear();
        for (int i = 0; i < tokens.size(); i++) {
            String path = "security.tokens[" + i + "]";
            Token token = Objects.requireNonNull(tokens.get(i), DispatcherProperties.PREFIX + "." + path);
            requireName(path + ".name", token.name(), names, i);
            if (token.sha256() == null || !SHA256_HEX.matcher(token.sha256()).matches()) {
                throw invalid(path + ".sha256", "must be 64 hexadecimal characters (the SHA-256 of the token)",
                        token.sha256() == null ? "absent" : "a value of " + token.sha256().length()
                                + " characters" + (token.sha256().length() == 64 ? " that is not hexadecimal" : ""));
            }
            requireRoles(path + ".roles", token.roles());
            requireTopicPatterns(path, token);
        }
    }

    public static SecurityProperties defaults() {
        return new SecurityProperties(null, null);
    }

    private static void requireName(String path, String name, Map<String, Integer> seen, int index) {
        if (name == null || name.isBlank()) {
            throw invalid(path, "must not be blank", quoted(name));
        }
        Integer earlier = seen.putIfAbsent(name, index);
        if (earlier != null) {
            throw invalid(path, "must be unique, same as [" + earlier + "]", quoted(name));
        }
    }

    private static void requireRoles(String path, List<String> roles) {
        if (roles.isEmpty()) {
            throw invalid(path, "must name at least one of " + ROLE_LIST, "empty");
        }
        for (int i = 0; i < roles.size(); i++) {
            if (!ROLES.contains(roles.get(i))) {
                throw invalid(path + "[" + i + "]", "must be one of " + ROLE_LIST, quoted(roles.get(i)));
            }
        }
    }

    private static void requireTopicPatterns(String path, Token token) {
        if (token.topics().isEmpty()) {
            return;
        }
        if (!token.roles().contains("PRODUCER")) {
            throw invalid(path + ".topics", "limits what a PRODUCER token may write, so the token must hold"
                    + " PRODUCER", "set on a token with roles " + token.roles());
        }
        for (int i = 0; i < token.topics().size(); i++) {
            String pattern = token.topics().get(i);
            if (pattern == null || !TOPIC_PATTERN.matcher(pattern).matches()) {
                throw invalid(path + ".topics[" + i + "]", "must be a topic name or a pattern of 1 to 249 of"
                        + " [a-zA-Z0-9._-] and '*' (any run of characters), such as orders.*", quoted(pattern));
            }
        }
    }

    /** The roles a user or token can hold. */
    public static final Set<String> ROLES = Set.of("PRODUCER", "VIEWER", "OPERATOR");

    static final String ROLE_LIST = "PRODUCER, VIEWER, OPERATOR";
    private static final Pattern TOPIC_PATTERN = Pattern.compile("[a-zA-Z0-9._*-]{1,249}");
    private static final Pattern SPRING_SECURITY_PASSWORD = Pattern.compile("\\{[^{}\\s]+}\\S.*", Pattern.DOTALL);
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

    /**
     * An HTTP Basic user; validated by {@link SecurityProperties}, which knows its index. The password is masked in
     * {@link #toString()}.
     *
     * @param name the user name (unique)
     * @param password the password in Spring Security's {@code {id}} form, e.g. {@code {bcrypt}$2a$10$...}
     * @param roles {@code PRODUCER}, {@code VIEWER} and/or {@code OPERATOR} (any case; stored upper-case)
     */
    @ConfigurationPropertiesSource
    public record User(String name, String password, List<String> roles) {

        public User {
            roles = upperCase(roles);
        }

        @Override
        public String toString() {
            return "User[name=" + name + ", password=" + MASK + ", roles=" + roles + "]";
        }
    }

    /**
     * A Bearer API token, stored as the SHA-256 of the token, so the token itself never sits in configuration;
     * validated by {@link SecurityProperties}. The hash is masked in {@link #toString()}.
     *
     * @param name who holds the token (unique; shown in audit entries)
     * @param sha256 the hex SHA-256 of the token
     * @param roles {@code PRODUCER}, {@code VIEWER} and/or {@code OPERATOR} (any case; stored upper-case)
     * @param topics the topics a PRODUCER token may write: names or patterns where {@code *} stands for any run of
     *     characters ({@code orders.*}); others answer 403; empty: every topic
     */
    @ConfigurationPropertiesSource
    public record Token(String name, String sha256, List<String> roles, List<String> topics) {

        @ConstructorBinding
        public Token {
            roles = upperCase(roles);
            topics = topics == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(topics));
        }

        /** A token that may write every topic. */
        public Token(String name, String sha256, List<String> roles) {
            this(name, sha256, roles, null);
        }

        @Override
        public String toString() {
            return "Token[name=" + name + ", sha256=" + MASK + ", roles=" + roles
                    + (topics.isEmpty() ? "" : ", topics=" + topics) + "]";
        }
    }

    /**
     * {@code dispatcher.security.auth-failures.*}: past {@code limit} failed authentications within {@code window}
     * from one client address, or from one address for one user name, that address (or that address for that name)
     * answers {@code 429} until the window ends; past ten times {@code limit} for one name from every address, that
     * name does, except from an address it signed in from within a day ({@code api.LoginThrottle}).
     *
     * @param limit failed authentications allowed per window from one client address, and from one address for one
     *     user name (1..1000000); a name's own limit, from every address, is ten times this
     * @param window the length of a window (1s..1d), counted from its first failure
     */
    public record AuthFailures(int limit, Duration window) {

        public static final int DEFAULT_LIMIT = 10;
        public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(1);

        public AuthFailures {
            PropertyRules.requireBetween("security.auth-failures.limit", limit, 1, 1_000_000);
            PropertyRules.requireBetween("security.auth-failures.window", window, Duration.ofSeconds(1),
                    Duration.ofDays(1));
        }

        /** The binding constructor: an absent value takes its default. */
        @ConstructorBinding
        public AuthFailures(@Nullable Integer limit, @Nullable Duration window) {
            this(orDefault(limit, DEFAULT_LIMIT).intValue(), orDefault(window, DEFAULT_WINDOW));
        }

        public static AuthFailures defaults() {
            return new AuthFailures(null, null);
        }
    }
}
