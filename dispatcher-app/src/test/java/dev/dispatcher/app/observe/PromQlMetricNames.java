package dev.dispatcher.app.observe;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression selects: what is left after removing string literals, label matchers,
 * range and subquery brackets, grouping clauses and function calls. Enough for the expressions of Dispatcher's
 * ops files (tested in {@code PromQlMetricNamesTest}); not a PromQL parser.
 */
final class PromQlMetricNames {

    private static final Pattern STRINGS = Pattern.compile("\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])*'|`[^`]*`");
    private static final Pattern LABEL_MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGES = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");
    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "and", "or", "unless", "offset", "inf", "nan", "Inf", "NaN");

    private PromQlMetricNames() {
    }

    static Set<String> of(String expression) {
        String rest = STRINGS.matcher(expression).replaceAll(" ");
        rest = LABEL_MATCHERS.matcher(rest).replaceAll(" ");
        rest = RANGES.matcher(rest).replaceAll(" ");
        rest = GROUPING.matcher(rest).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(rest);
        while (m.find()) {
            boolean partOfNumber = m.start() > 0 && (Character.isDigit(rest.charAt(m.start() - 1))
                    || rest.charAt(m.start() - 1) == '.');
            boolean function = rest.substring(m.end()).stripLeading().startsWith("(");
            if (!partOfNumber && !function && !KEYWORDS.contains(m.group())) {
                names.add(m.group());
            }
        }
        return names;
    }
}
