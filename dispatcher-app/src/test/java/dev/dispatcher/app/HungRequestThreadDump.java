package dev.dispatcher.app;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Prints every thread's stack when a test fails on a timeout (a request that never got an answer, an await that ran
 * out), so the report shows what the service was doing instead of only that it did not answer. Registered for
 * every test of this module through {@code META-INF/services} and {@code junit.jupiter.extensions.autodetection}.
 */
public final class HungRequestThreadDump implements TestExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        if (isTimeout(failure)) {
            StringBuilder dump = new StringBuilder("Thread dump at the timeout of ")
                    .append(context.getDisplayName()).append(":\n");
            for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                dump.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
                if (info.getLockName() != null) {
                    dump.append(" on ").append(info.getLockName());
                }
                if (info.getLockOwnerName() != null) {
                    dump.append(" owned by \"").append(info.getLockOwnerName()).append('"');
                }
                dump.append('\n');
                for (StackTraceElement frame : info.getStackTrace()) {
                    dump.append("\tat ").append(frame).append('\n');
                }
            }
            System.out.println(dump);
        }
        throw failure;
    }

    private static boolean isTimeout(Throwable failure) {
        for (Throwable e = failure; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof TimeoutException || String.valueOf(e.getMessage()).contains("Timeout on blocking read")
                    || e.getClass().getSimpleName().equals("ConditionTimeoutException")) {
                return true;
            }
        }
        return false;
    }
}
