package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

class SecurityProblemsTest {

    @Test
    void browsersAreToldApartFromApiClientsByHeadersOnlyBrowsersSend() {
        assertThat(SecurityProblems.fromBrowser(headers("Accept",
                "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"))).as("a navigation").isTrue();
        assertThat(SecurityProblems.fromBrowser(headers("Sec-Fetch-Mode", "no-cors"))).as("fetch metadata").isTrue();
        assertThat(SecurityProblems.fromBrowser(headers("Upgrade-Insecure-Requests", "1"))).isTrue();
        assertThat(SecurityProblems.fromBrowser(headers("X-Requested-With", "XMLHttpRequest"))).as("the console")
                .isTrue();

        assertThat(SecurityProblems.fromBrowser(headers("Accept", "*/*"))).as("curl").isFalse();
        assertThat(SecurityProblems.fromBrowser(headers("Accept", "application/json"))).isFalse();
        assertThat(SecurityProblems.fromBrowser(new HttpHeaders())).isFalse();
        assertThat(SecurityProblems.fromBrowser(headers("Accept", "not a media type"))).isFalse();
    }

    private static HttpHeaders headers(String name, String value) {
        HttpHeaders headers = new HttpHeaders();
        headers.add(name, value);
        return headers;
    }
}
