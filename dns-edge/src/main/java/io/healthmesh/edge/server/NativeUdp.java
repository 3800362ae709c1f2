package io.healthmesh.edge.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * recvmmsg and sendmmsg through JNI (src/main/c/healthmesh_udp.c), built by Maven when the build
 * machine has gcc and runs Linux. Without the library the edge falls back to NIO, one datagram
 * per system call. The buffer layout is described in the C file; {@link BatchUdpLoop} owns it.
 */
final class NativeUdp {
  static final int BATCH = 64;
  static final int META = 32;
  private static final String RESOURCE = "/native/linux-" + System.getProperty("os.arch") + "/libhealthmesh-udp.so";
  private static final String UNAVAILABLE = load();

  private NativeUdp() {}

  /** @return null when the library is loaded, else why not */
  static String unavailable() {
    return UNAVAILABLE;
  }

  private static String load() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return "not Linux";
    }
    try (InputStream in = NativeUdp.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "this build has no " + RESOURCE + " (it is compiled only where gcc is found)";
      }
      Path file = Files.createTempFile("healthmesh-udp", ".so");
      try {
        Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        System.load(file.toString());
      } finally {
        Files.delete(file); // a loaded library stays mapped; nothing is left behind even after SIGKILL
      }
      return null;
    } catch (IOException | LinkageError e) {
      return e.toString(); // UdpServer logs it, when batching was asked for
    }
  }

  /** A bound socket with SO_REUSEPORT. */
  static int openOrThrow(byte[] address, int port) throws IOException {
    return check(open(address, port), "bind to port " + port);
  }

  static int check(int result, String what) throws IOException {
    if (result < 0) {
      throw new IOException(what + ": " + describe(-result));
    }
    return result;
  }

  static native int open(byte[] address, int port);

  static native int localPort(int fd);

  /** @return datagrams received (at least one, unless shut down: then 0), or -errno */
  static native int receive(int fd, ByteBuffer data, ByteBuffer meta, int count, int slot);

  /** @return datagrams the kernel refused, or -errno when the buffers do not fit */
  static native int send(int fd, ByteBuffer data, ByteBuffer meta, int count, int slot);

  /** Wakes the thread blocked in {@link #receive}; close only once it has left. */
  static native void shutdown(int fd);

  static native void close(int fd);

  static native String describe(int errno);
}
