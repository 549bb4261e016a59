package dev.dispatcher.app.store;

import io.r2dbc.spi.Statement;

/** Binding helpers for nullable text parameters. */
final class Binds {

    private Binds() {
    }

    static Statement nullable(Statement s, String name, String value) {
        return value == null ? s.bindNull(name, String.class) : s.bind(name, value);
    }
}
