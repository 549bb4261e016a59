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

  /**
   * A nested loop that compares every outer row with every row of a materialised row set: its inner side is a
   * {@code CTE Scan} (directly or under a {@code Materialize}) and the join condition a {@code Join Filter}, so the
   * set is read once per outer row. Quadratic in a batch: how a generic plan, expecting ten rows from an array
   * parameter and one from an UPDATE, joined a Deliver's inputs to the rows it wrote.
   */
  public static boolean joinsEveryPairWithARowSet(String plan) {
    String[] lines = plan.split("\n");
    for (int i = 0; i < lines.length; i++) {
      int at = nodeColumn(lines[i]);
      if (at < 0 || !lines[i].startsWith("Nested Loop", at)) {
        continue;
      }
      boolean filtered = false;
      int inner = -1;
      for (int j = i + 1; j < lines.length && indent(lines[j]) > at; j++) {
        if (indent(lines[j]) == at + 2) {
          filtered |= lines[j].strip().startsWith("Join Filter:");
          if (lines[j].strip().startsWith("->")) {
            inner = j;
          }
        }
      }
      if (!filtered || inner < 0) {
        continue;
      }
      int innerAt = nodeColumn(lines[inner]);
      boolean cte = lines[inner].startsWith("CTE Scan", innerAt);
      if (!cte && lines[inner].startsWith("Materialize", innerAt)) {
        for (int j = inner + 1; j < lines.length && indent(lines[j]) > innerAt; j++) {
          if (indent(lines[j]) == innerAt + 2 && lines[j].strip().startsWith("->")) {
            cte = lines[j].startsWith("CTE Scan", nodeColumn(lines[j]));
            break;
          }
        }
      }
      if (cte) {
        return true;
      }
    }
    return false;
  }

  /** Where a plan node's name starts on its line (after the arrow), or -1 for a detail line. */
  private static int nodeColumn(String line) {
    int n = indent(line);
    if (line.startsWith("->", n)) {
      n += 2;
      while (n < line.length() && line.charAt(n) == ' ') {
        n++;
      }
      return n;
    }
    return n == 0 && !line.isBlank() ? 0 : -1;
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
