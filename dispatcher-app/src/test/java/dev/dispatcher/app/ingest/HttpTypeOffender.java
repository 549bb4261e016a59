package dev.dispatcher.app.ingest;

import org.springframework.http.server.reactive.ServerHttpRequest;

/** Test fixture for ServicePackagesTest: an ingest class that reads an HTTP request. */
public final class HttpTypeOffender {

    long declared(ServerHttpRequest request) {
        return request.getHeaders().getContentLength();
    }
}
