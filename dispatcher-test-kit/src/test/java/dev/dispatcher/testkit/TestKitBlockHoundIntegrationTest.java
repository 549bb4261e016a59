package dev.dispatcher.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

class TestKitBlockHoundIntegrationTest {

  private static final String NON_BLOCKING_THREAD = "kit-non-blocking";

  @BeforeAll
  static void install() {
    // install() also applies every integration registered in META-INF/services, ours included
    BlockHound.install(builder -> builder.nonBlockingThreadPredicate(
        current -> current.or(thread -> thread.getName().startsWith(NON_BLOCKING_THREAD))));
  }

  @Test
  void randomUuidIsAllowedOnNonBlockingThreads() throws Exception {
    assertThat(runOnNonBlockingThread(UUID::randomUUID)).isNull();
  }

  @Test
  void genuineBlockingIsStillReported() throws Exception {
    assertThat(runOnNonBlockingThread(() -> sleep(1))).isInstanceOf(BlockingOperationError.class);
  }

  private static Throwable runOnNonBlockingThread(Runnable task) throws Exception {
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    Thread.ofPlatform().name(NON_BLOCKING_THREAD).start(() -> {
      try {
        task.run();
        failure.complete(null);
      } catch (Throwable e) {
        failure.complete(e);
      }
    });
    return failure.get(10, TimeUnit.SECONDS);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
