package io.healthmesh.edge.servers;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;

/**
 * A real name server from Debian (NSD or unbound) run by a test on a loopback port, in the
 * foreground so that it dies with the test; its log stays in its directory.
 */
public final class NameServerProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path dir;

  NameServerProcess(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** Starts {@code command} and waits until the server answers {@code probe} (any rcode but SERVFAIL and REFUSED). */
  static NameServerProcess start(Path dir, int port, String probe, String... command) throws IOException,
      InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile())
        .start();
    NameServerProcess server = new NameServerProcess(p, port, dir);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        break;
      }
      try {
        Message reply = server.resolver().send(Message.newQuery(Record.newRecord(Name.fromString(probe),
            org.xbill.DNS.Type.SOA, DClass.IN)));
        if (reply.getRcode() != Rcode.SERVFAIL && reply.getRcode() != Rcode.REFUSED) {
          return server;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    server.close();
    throw new IllegalStateException(String.join(" ", command) + " did not answer on port " + port + ": "
        + Files.readString(dir.resolve("out.log")));
  }

  /** A loopback port free for both UDP and TCP when asked. */
  static int freePort() throws IOException {
    for (int attempt = 0; ; attempt++) {
      try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
          ServerSocket tcp = new ServerSocket(udp.getLocalPort(), 1, InetAddress.getLoopbackAddress())) {
        return tcp.getLocalPort();
      } catch (IOException e) {
        if (attempt == 10) {
          throw e;
        }
      }
    }
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  public Path dir() {
    return dir;
  }

  /** dnsjava's resolver pointed at this server. */
  public SimpleResolver resolver() throws IOException {
    SimpleResolver r = new SimpleResolver(InetAddress.getLoopbackAddress());
    r.setPort(port);
    r.setTimeout(Duration.ofSeconds(2));
    return r;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
