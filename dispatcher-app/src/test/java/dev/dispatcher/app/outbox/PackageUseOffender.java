package dev.dispatcher.app.outbox;

import dev.dispatcher.app.demo.DemoFixture;
import dev.dispatcher.app.ingest.TopicGrant;

/** Test fixture for ServicePackagesTest: an outbox class that uses the ingest and the demo package. */
public final class PackageUseOffender {

    boolean allows(String topic) {
        return TopicGrant.ALL.allows(topic);
    }

    Object demo() {
        return new DemoFixture();
    }
}
