package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What {@link CanonicalPaths} lets through and what it refuses, on paths as they arrive (still encoded). */
class CanonicalPathsTest {

    @Test
    void theApisPathsAsDocumentedAreCanonical() {
        assertThat(CanonicalPaths.fault("/")).isNull();
        assertThat(CanonicalPaths.fault("/v1/relay/pause")).isNull();
        assertThat(CanonicalPaths.fault("/v1/messages/0b5c5a8e-3f0e-4c8e-9a7e-4f5f0c1d2e3f/replay")).isNull();
        assertThat(CanonicalPaths.fault("/actuator/health/readiness")).isNull();
        assertThat(CanonicalPaths.fault("/v3/api-docs.yaml")).isNull();
        assertThat(CanonicalPaths.fault("/v1/messages/")).as("a trailing slash routes nowhere new").isNull();
    }

    @Test
    void anEncodingOfACharacterThatNeedsOneIsCanonical() {
        assertThat(CanonicalPaths.fault("/v1/inbox/a%20b/dead-letters")).isNull();
        assertThat(CanonicalPaths.fault("/v1/inbox/caf%C3%A9/dead-letters")).isNull();
        assertThat(CanonicalPaths.fault("/v1/inbox/a%3Ab%40c/dead-letters")).isNull();
    }

    @Test
    void anEncodedUnreservedCharacterIsRefusedWhateverItsCase() {
        assertThat(CanonicalPaths.fault("/%761/relay/pause")).contains("'%76'", "an encoded 'v'");
        assertThat(CanonicalPaths.fault("/v1/relay/paus%65")).contains("an encoded 'e'");
        assertThat(CanonicalPaths.fault("/v%31/relay/pause")).contains("an encoded '1'");
        assertThat(CanonicalPaths.fault("/v1/dead%2Dletters/replay")).contains("an encoded '-'");
        assertThat(CanonicalPaths.fault("/v1/dead%2dletters/replay")).contains("an encoded '-'");
        assertThat(CanonicalPaths.fault("/v1/%2e%2e/relay")).contains("an encoded '.'");
        assertThat(CanonicalPaths.fault("/v1/a%5Fb")).contains("an encoded '_'");
        assertThat(CanonicalPaths.fault("/v1/a%7Eb")).contains("an encoded '~'");
        assertThat(CanonicalPaths.fault("/actuator/%48ealth")).contains("an encoded 'H'");
    }

    @Test
    void whatChangesThePathsStructureIsRefused() {
        assertThat(CanonicalPaths.fault("/v1/relay%2Fpause")).contains("an encoded '/'");
        assertThat(CanonicalPaths.fault("/v1/relay%5Cpause")).contains("an encoded '\\'");
        assertThat(CanonicalPaths.fault("/v1/relay%3Bx/pause")).contains("an encoded ';'");
        assertThat(CanonicalPaths.fault("/v1/relay/%2570ause")).contains("an encoded '%'");
        assertThat(CanonicalPaths.fault("/v1;x=1/relay/pause")).contains("';'");
        assertThat(CanonicalPaths.fault("/v1\\relay/pause")).contains("'\\'");
        assertThat(CanonicalPaths.fault("/v1/./relay/pause")).contains("'.' segment");
        assertThat(CanonicalPaths.fault("/v1/x/../relay/pause")).contains("'..' segment");
        assertThat(CanonicalPaths.fault("/v1/relay/..")).contains("'..' segment");
        assertThat(CanonicalPaths.fault("//v1/relay/pause")).contains("empty segment");
        assertThat(CanonicalPaths.fault("/v1//relay/pause")).contains("empty segment");
    }

    @Test
    void aMalformedEncodingIsRefused() {
        assertThat(CanonicalPaths.fault("/v1/relay/pause%")).contains("two hexadecimal digits");
        assertThat(CanonicalPaths.fault("/v1/relay/pause%7")).contains("two hexadecimal digits");
        assertThat(CanonicalPaths.fault("/v1/relay/pause%zz")).contains("two hexadecimal digits");
        assertThat(CanonicalPaths.fault("/v1/relay/pause%\u0663\u0663")).contains("two hexadecimal digits");
    }
}
