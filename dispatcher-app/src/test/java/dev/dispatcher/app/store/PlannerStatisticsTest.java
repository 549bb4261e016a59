package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PlannerStatisticsTest {

    @Test
    void aTableIsFirstAnalysedOnceItHoldsAThousandRows() {
        assertThat(PlannerStatistics.due(-1, 999, 0)).isFalse();
        assertThat(PlannerStatistics.due(-1, 1_000, 0)).isTrue();
        assertThat(PlannerStatistics.due(0, 1_000, 0)).isTrue();
    }

    @Test
    void statisticsAreRefreshedWhenTheTableDoubledUntilTheySettle() {
        assertThat(PlannerStatistics.due(4_000, 7_999, 4_000)).isFalse();
        assertThat(PlannerStatistics.due(4_000, 8_000, 4_000)).isTrue();
        assertThat(PlannerStatistics.due(PlannerStatistics.SETTLED_ROWS - 1, 10 * PlannerStatistics.SETTLED_ROWS, 0))
                .isTrue();
        assertThat(PlannerStatistics.due(PlannerStatistics.SETTLED_ROWS, 10 * PlannerStatistics.SETTLED_ROWS, 0))
                .isFalse();
    }

    @Test
    void statisticsThatDidNotMoveAreTriedAgainOnlyWhenTheTableDoubledSinceTheLastAttempt() {
        // an ANALYZE without the owner's privilege is a warning in PostgreSQL: reltuples stays where it was
        assertThat(PlannerStatistics.due(-1, 1_500, 1_000)).isFalse();
        assertThat(PlannerStatistics.due(-1, 2_000, 1_000)).isTrue();
    }
}
