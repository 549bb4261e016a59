package dev.dispatcher.load.result;

/** How RESULT figures are rounded: rates and times to one decimal, ratios and shares to two. */
public final class Round {

    private Round() {
    }

    /** One decimal: rates, milliseconds. */
    public static double one(double v) {
        return Math.round(v * 10) / 10.0;
    }

    /** Two decimals: ratios below 1, shares. */
    public static double two(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
