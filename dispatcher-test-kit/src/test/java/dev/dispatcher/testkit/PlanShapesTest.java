package dev.dispatcher.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PlanShapesTest {

  @Test
  void aFullIndexScanCountsAsAFullRead() {
    String full = """
          ->  Hash Join  (cost=325.06..27303.22 rows=9989 width=130)
                Hash Cond: (o.id = c.id)
                ->  Index Scan using outbox_message_pkey on outbox_message o  (cost=0.42..26166.35 rows=150000)
                ->  Hash  (cost=199.78..199.78 rows=9989 width=72)
        """;
    String probed = """
          ->  Nested Loop  (cost=0.29..8.34 rows=1 width=130)
                ->  Index Scan using outbox_message_pkey on outbox_message o  (cost=0.29..8.31 rows=1 width=26)
                      Index Cond: (id = c.id)
                ->  Index Scan using outbox_message_live_seq_idx on outbox_message m  (cost=0.28..4.31 rows=1)
                      Index Cond: (seq > 0)
                      Filter: (status = ANY ('{PENDING,RETRY_SCHEDULED}'::text[]))
        """;
    assertThat(PlanShapes.readsAGrowingTableInFull(full)).isTrue();
    assertThat(PlanShapes.readsAGrowingTableInFull(probed)).isFalse();
  }

  @Test
  void aScanThatALimitStopsOrAPartialIndexBoundsIsNotAFullRead() {
    String page = """
          ->  Limit  (cost=0.42..0.48 rows=1 width=8)
                ->  Index Only Scan Backward using outbox_message_seq_key on outbox_message m  (cost=0.42..9170.42)
          ->  Index Scan using outbox_message_live_seq_idx on outbox_message b  (cost=0.28..4.29 rows=1)
        """;
    assertThat(PlanShapes.readsAGrowingTableInFull(page)).isFalse();
  }

  @Test
  void aSequentialScanCountsOnGrowingTablesOnly() {
    assertThat(PlanShapes.readsAGrowingTableInFull("  ->  Seq Scan on outbox_message m  (cost=0.00..15.95 rows=1)\n"))
        .isTrue();
    assertThat(PlanShapes.readsAGrowingTableInFull("  ->  Seq Scan on dispatcher_control c  (cost=0.00..1.01 rows=1)\n"))
        .isFalse();
  }
}
