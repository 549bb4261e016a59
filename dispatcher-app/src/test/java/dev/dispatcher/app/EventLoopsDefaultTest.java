package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EventLoopsDefaultTest {

    private String before;

    @BeforeEach
    void saveProperty() {
        before = System.getProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY);
        System.clearProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY);
    }

    @AfterEach
    void restoreProperty() {
        if (before == null) {
            System.clearProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY);
        } else {
            System.setProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY, before);
        }
    }

    @Test
    void eachLoopGroupGetsHalfTheProcessorsAndAtLeastOne() {
        DispatcherApplication.defaultEventLoops(2);
        assertThat(System.getProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY)).isEqualTo("1");

        System.clearProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY);
        DispatcherApplication.defaultEventLoops(1);
        assertThat(System.getProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY)).isEqualTo("1");

        System.clearProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY);
        DispatcherApplication.defaultEventLoops(16);
        assertThat(System.getProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY)).isEqualTo("8");
    }

    @Test
    void anOperatorsChoiceIsKept() {
        System.setProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY, "6");
        DispatcherApplication.defaultEventLoops(2);
        assertThat(System.getProperty(DispatcherApplication.EVENT_LOOPS_PROPERTY)).isEqualTo("6");
    }
}
