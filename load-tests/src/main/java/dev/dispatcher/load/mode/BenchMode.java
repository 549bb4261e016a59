package dev.dispatcher.load.mode;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A benchmark mode with its options parsed and validated: one record per mode, each holding its documented defaults
 * as named constants. {@code RelayBenchmark} parses the mode name ({@link #parse}) and dispatches on the record with
 * an exhaustive switch.
 */
public sealed interface BenchMode permits Drain, Latency, Sweep, Inbox, Scale, BlackBox, BlackBoxScale,
        BlackBoxLatency, ReferenceLatency, Overload, LargeDrain, BlackBoxSources,
        BlackBoxFormats, Sustained, BlackBoxInbox, BlackBoxNewTopic, BlackBoxImage, Hostile {

    /** Every mode's name, in the order the usage lists them. */
    List<String> NAMES = List.of(Drain.NAME, Latency.NAME, Sweep.NAME, Inbox.NAME, Scale.NAME, BlackBox.NAME,
            BlackBoxScale.NAME, BlackBoxLatency.NAME, ReferenceLatency.NAME, Overload.NAME, LargeDrain.NAME,
            BlackBoxSources.NAME, BlackBoxFormats.NAME,
            Sustained.NAME, BlackBoxInbox.NAME, BlackBoxNewTopic.NAME, BlackBoxImage.NAME, Hostile.NAME);

    /** The mode's name, as given on the command line. */
    String name();

    /** The servers it runs on. */
    Servers servers();

    /** Whether the harness's own broker creates topics on first use ({@code auto.create.topics.enable}). */
    default boolean brokerCreatesTopics() {
        return false;
    }

    /**
     * The mode {@code args} name ({@code args[0]}) with the options after it.
     *
     * @throws IllegalArgumentException for an unknown mode, or an option that is unknown to the mode, misses its
     *     value or has a bad one: the message names the option and the value
     */
    static BenchMode parse(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no mode given; modes: " + String.join("|", NAMES));
        }
        String name = args[0].toLowerCase(Locale.ROOT);
        Options o = Options.of(name, Arrays.asList(args).subList(1, args.length));
        BenchMode mode = switch (name) {
            case Drain.NAME -> Drain.parse(o);
            case Latency.NAME -> Latency.parse(o);
            case Sweep.NAME -> Sweep.parse(o);
            case Inbox.NAME -> Inbox.parse(o);
            case Scale.NAME -> Scale.parse(o);
            case BlackBox.NAME -> BlackBox.parse(o);
            case BlackBoxScale.NAME -> BlackBoxScale.parse(o);
            case BlackBoxLatency.NAME -> BlackBoxLatency.parse(o);
            case ReferenceLatency.NAME -> ReferenceLatency.parse(o);
            case Overload.NAME -> Overload.parse(o);
            case LargeDrain.NAME -> LargeDrain.parse(o);
            case BlackBoxSources.NAME -> BlackBoxSources.parse(o);
            case BlackBoxFormats.NAME -> BlackBoxFormats.parse(o);
            case Sustained.NAME -> Sustained.parse(o);
            case BlackBoxInbox.NAME -> BlackBoxInbox.parse(o);
            case BlackBoxNewTopic.NAME -> BlackBoxNewTopic.parse(o);
            case BlackBoxImage.NAME -> BlackBoxImage.parse(o);
            case Hostile.NAME -> Hostile.parse(o);
            default -> throw new IllegalArgumentException("unknown mode '" + args[0] + "'; modes: "
                    + String.join("|", NAMES));
        };
        o.rejectUnread();
        return mode;
    }

    /** One line of usage: the modes; each mode's options are named when one of them is wrong. */
    static String usage() {
        return "usage: RelayBenchmark " + String.join("|", NAMES) + " [--option value ...] (see docs/benchmarks.md)";
    }
}
