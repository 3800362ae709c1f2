package io.healthmesh.settings;

import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * What every healthmesh process's {@code main} does: read {@code [file.properties] [key=value ...]},
 * exit with code 2 and every problem on an invalid configuration, start, say where it listens,
 * and close cleanly on SIGTERM or Ctrl-C.
 */
public final class Launcher {
  private Launcher() {}

  /** Starts the process and returns what to close and what to tell the operator. */
  @FunctionalInterface
  public interface Starter<S> {
    Started start(S settings) throws Exception;
  }

  public record Started(AutoCloseable process, String banner) {}

  public static <S> void run(String[] args, String usage, Function<Properties, S> settings, Starter<S> starter)
      throws Exception {
    S parsed;
    try {
      parsed = settings.apply(SettingsReader.fromArgs(args));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("usage: " + usage + " [FILE.properties] [key=value ...]");
      System.exit(2);
      return;
    }
    Started started = starter.start(parsed);
    System.out.println(started.banner());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        started.process().close();
      } catch (Exception e) {
        System.err.println("while stopping: " + e);
      }
      stopped.countDown();
    }, "shutdown"));
    stopped.await();
  }
}
