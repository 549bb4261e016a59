package dev.dispatcher.testkit;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shapes of PostgreSQL {@code EXPLAIN} output that tests of Dispatcher's statements look for, in one place for the
 * schema tests of the migrations module and the service's store tests.
 */
public final class PlanShapes {

  /** A sequential scan of one of the growing tables; small tables (control) may be scanned. */
  private static final Pattern SEQ_SCAN =
      Pattern.compile("Seq Scan on (outbox_message|inbox_message|dispatch_audit)");

  /**
   * A scan of one of the growing tables' indexes that are not partial: the ones that hold the whole history, so
   * a scan of one with no condition on its index reads the table in full (a plan can walk one instead of the
   * heap, as the outer side of a join or the input of a hash).
   * The live and dead-letter indexes are partial (bounded by the backlog), and a scan right under a
   * {@code Limit} stops early ({@code max(seq)}, a listing's page).
   */
  private static final Pattern HISTORY_INDEX_SCAN = Pattern.compile(
      "^(\\s*)(?:->\\s+)?Index (?:Only )?Scan(?: Backward)? using (?:outbox_message_pkey|outbox_message_seq_key|"
          + "inbox_message_pkey|inbox_message_seq_key|dispatch_audit_pkey|dispatch_audit_message_idx) on ");

  /** A sequential scan, or an index scan without an index condition, of a growing table. */
  public static boolean readsAGrowingTableInFull(String plan) {
    if (SEQ_SCAN.matcher(plan).find()) {
      return true;
    }
    String[] lines = plan.split("\n");
    for (int i = 0; i < lines.length; i++) {
      Matcher scan = HISTORY_INDEX_SCAN.matcher(lines[i]);
      if (!scan.find() || (i > 0 && lines[i - 1].strip().matches("(->\\s+)?Limit\\b.*"))) {
        continue;
      }
      boolean conditioned = false;
      int detailIndent = scan.group(1).length() + 2;
      for (int j = i + 1; j < lines.length && indent(lines[j]) >= detailIndent
          && !lines[j].strip().startsWith("->"); j++) {
        conditioned |= lines[j].strip().startsWith("Index Cond:");
      }
      if (!conditioned) {
        return true;
      }
    }
    return false;
  }

  private static int indent(String line) {
    int n = 0;
    while (n < line.length() && line.charAt(n) == ' ') {
      n++;
    }
    return n;
  }

  private PlanShapes() {}
}
