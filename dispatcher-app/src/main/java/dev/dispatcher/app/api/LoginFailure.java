package dev.dispatcher.app.api;

import dev.dispatcher.app.observe.AuthFailureCounter;
import org.springframework.security.authentication.BadCredentialsException;

/**
 * A refused HTTP Basic sign-in with the reason it is counted under. The client sees the same {@code 401} for every
 * reason: the message is the same for all of them and never reaches the answer anyway.
 */
final class LoginFailure extends BadCredentialsException {

    private final AuthFailureCounter.Reason reason;

    LoginFailure(AuthFailureCounter.Reason reason) {
        super("Invalid Credentials");
        this.reason = reason;
    }

    AuthFailureCounter.Reason reason() {
        return reason;
    }
}
