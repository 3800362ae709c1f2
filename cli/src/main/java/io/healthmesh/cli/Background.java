package io.healthmesh.cli;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * A read that runs beside another on its own daemon thread: a command waits on brokers for one
 * while the CPU works on the other. Its failure is rethrown as it was, as if read in line.
 */
final class Background<T> {
  private final FutureTask<T> task;

  private Background(Callable<T> work, String name) {
    task = new FutureTask<>(work);
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }

  static <T> Background<T> start(String name, Callable<T> work) {
    return new Background<>(work, name);
  }

  /** Its result, once it has one; its failure with its own message, as if it had run here. */
  T join() {
    try {
      return task.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause.getMessage(), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
