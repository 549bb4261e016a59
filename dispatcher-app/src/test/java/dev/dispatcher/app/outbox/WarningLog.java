package dev.dispatcher.app.outbox;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/** The formatted WARN lines of one logger while attached; close it to detach. */
final class WarningLog implements AutoCloseable {

    private final Logger logger;
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            if (event.getLevel() == Level.WARN) {
                messages.add(event.getFormattedMessage());
            }
        }
    };

    private WarningLog(Logger logger) {
        this.logger = logger;
    }

    /** Starts collecting the warnings of logger {@code name}. */
    static WarningLog attach(String name) {
        WarningLog log = new WarningLog((Logger) LoggerFactory.getLogger(name));
        log.appender.setContext(log.logger.getLoggerContext());
        log.appender.start();
        log.logger.addAppender(log.appender);
        return log;
    }

    List<String> messages() {
        return List.copyOf(messages);
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
