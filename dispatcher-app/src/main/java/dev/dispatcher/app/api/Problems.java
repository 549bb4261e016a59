package dev.dispatcher.app.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The problems a handler method answers with beyond those every {@code /v1} endpoint can answer (401, 403, 429
 * {@code too-many-failed-logins}, 415 for a mutation, 500, and the database's 503s), for the OpenAPI document
 * ({@link ApiDocsConfiguration}), which lists each under its status.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface Problems {

    /** The endpoint's own problems. */
    ProblemType[] value() default {};

    /** Whether the endpoint reads or writes the database, and so can answer its 503s. */
    boolean database() default true;
}
