package io.healthmesh.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and peak resident memory of this process, from the JVM and /proc. */
final class ProcessStats {
  private ProcessStats() {}

  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** Resets the kernel's peak RSS mark so the next reading covers only what follows. */
  static void resetPeakRss() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (IOException e) {
      // not permitted here: the peak then covers the whole process
    }
  }

  /** CPU nanoseconds of every live thread, by name. */
  static java.util.Map<String, Long> threadCpu() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    java.util.Map<String, Long> cpu = new java.util.HashMap<>();
    for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null) {
        long nanos = threads.getThreadCpuTime(info.getThreadId());
        if (nanos > 0) {
          cpu.merge(info.getThreadName().replaceAll("-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", ""), nanos, Long::sum);
        }
      }
    }
    return cpu;
  }

  /** The threads that used most CPU between two readings, as "name=seconds" text. */
  static String topThreads(java.util.Map<String, Long> before, java.util.Map<String, Long> after, int count) {
    return after.entrySet().stream()
        .map(e -> java.util.Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
        .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed()).limit(count)
        .map(e -> String.format("%s=%.1fs", e.getKey(), e.getValue() / 1e9))
        .collect(java.util.stream.Collectors.joining(", "));
  }

  static long peakRssBytes() {
    return peakRssBytes("self");
  }

  /** VmHWM of process {@code pid} ("self" for this one); -1 when not known. */
  static long peakRssBytes(String pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return -1;
  }
}
