/**
 * The black-box modes: the Dispatcher service in its own JVM (the exec jar, as users deploy it; for {@code scale},
 * its main class on the harness's class path), observed only through HTTP (health, Prometheus, {@code /v1/stats}, the
 * pause switch), SQL and the topics it writes. The figures that count come from here.
 */
package dev.dispatcher.load.blackbox;
