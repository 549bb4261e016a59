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

  @Test
  void aNestedLoopReadingARowSetOncePerOuterRowJoinsEveryPair() {
    // the fast Deliver's anti-join as a generic plan made it (PostgreSQL 15, EXPLAIN ANALYZE: 124,750 comparisons)
    String perPair = """
        Nested Loop Anti Join  (cost=9.00..25.41 rows=5 width=57)
          Join Filter: (w.id = i.id)
          CTE upd
            ->  Update on outbox_message t  (cost=0.42..8.97 rows=1 width=42)
                  ->  Index Scan using outbox_message_pkey on outbox_message t  (cost=0.42..8.97 rows=1)
                        Index Cond: (id = ANY ($1))
          ->  Nested Loop Left Join  (cost=0.42..16.20 rows=10 width=57)
                ->  Function Scan on unnest i  (cost=0.00..0.10 rows=10 width=16)
                ->  Index Scan using outbox_message_pkey on outbox_message s  (cost=0.42..1.61 rows=1)
                      Index Cond: (id = i.id)
          ->  CTE Scan on upd w  (cost=0.00..0.02 rows=1 width=16)
        """;
    String materialised = """
          ->  Nested Loop Left Join  (cost=1.44..77.47 rows=10 width=215)
                Join Filter: (upd.id = i.id)
                ->  CTE Scan on input i  (cost=0.00..0.20 rows=10 width=24)
                ->  Materialize  (cost=0.00..0.03 rows=1 width=84)
                      ->  CTE Scan on upd  (cost=0.00..0.02 rows=1 width=84)
        """;
    // the same Deliver with EXCEPT, and a nested loop whose inner side is probed by index
    String hashed = """
        Nested Loop Left Join  (cost=9.40..26.03 rows=10 width=57)
          CTE upd
            ->  Update on outbox_message t  (cost=0.42..8.97 rows=1 width=42)
          ->  Subquery Scan on n  (cost=0.03..0.36 rows=10 width=16)
                ->  HashSetOp Except  (cost=0.03..0.26 rows=10 width=20)
                      ->  Append  (cost=0.03..0.24 rows=11 width=20)
                            ->  CTE Scan on upd w  (cost=0.00..0.02 rows=1 width=16)
          ->  Index Scan using outbox_message_pkey on outbox_message s  (cost=0.42..1.61 rows=1)
                Index Cond: (id = n.id)
        """;
    assertThat(PlanShapes.joinsEveryPairWithARowSet(perPair)).isTrue();
    assertThat(PlanShapes.joinsEveryPairWithARowSet(materialised)).isTrue();
    assertThat(PlanShapes.joinsEveryPairWithARowSet(hashed)).isFalse();
  }
}
