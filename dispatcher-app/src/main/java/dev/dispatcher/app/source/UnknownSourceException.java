package dev.dispatcher.app.source;

import java.util.Collection;

/** A source was asked for by a name that no source has; the message names the known ones. */
public final class UnknownSourceException extends RuntimeException {

    private final String source;

    UnknownSourceException(String source, Collection<String> known) {
        super("no source named '" + source + "' (known: " + String.join(", ", known) + ")", null, false, false);
        this.source = source;
    }

    /** The name asked for. */
    public String source() {
        return source;
    }
}
