package io.healthmesh.edge.server;

import io.healthmesh.edge.answer.Responder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A UDP loop on {@link NativeUdp}: waits for one query, takes every other one already queued (up
 * to {@value NativeUdp#BATCH}), answers them all, and sends the answers in one call. Batching adds
 * no wait: a lone query is answered as soon as it arrives.
 */
final class BatchUdpLoop implements UdpLoop {
  private static final Logger LOG = LoggerFactory.getLogger(BatchUdpLoop.class);
  /** Queries longer than this are dropped and counted: no DNS query needs 4 KiB. */
  static final int SLOT = 4096;
  private static final byte[] NOTHING = new byte[0];
  private final int fd;
  private final Responder responder;
  private final ServerMetrics metrics;
  private final ServerMetrics.Transport queries;
  private final ByteBuffer in = ByteBuffer.allocateDirect(NativeUdp.BATCH * SLOT);
  private final ByteBuffer out = ByteBuffer.allocateDirect(NativeUdp.BATCH * SLOT);
  private final ByteBuffer meta =
      ByteBuffer.allocateDirect(NativeUdp.BATCH * NativeUdp.META).order(ByteOrder.nativeOrder());
  /** One datagram's buffers for replies that follow later (forwarded queries), sent from other threads. */
  private final ByteBuffer lateOut = ByteBuffer.allocateDirect(SLOT);
  private final ByteBuffer lateMeta = ByteBuffer.allocateDirect(NativeUdp.META).order(ByteOrder.nativeOrder());
  /** The last client's family and address: consecutive queries mostly come from one client. */
  private final byte[] lastAddress = new byte[17];
  private InetAddress lastClient;
  private volatile boolean running = true;
  /** The datagram being answered, for {@link #later}: read on this loop's thread only. */
  private byte[] current;
  private int currentRecord;
  private final Responder.Later later = () -> {
    byte[] packet = current;
    byte[] to = new byte[NativeUdp.META]; // its address and port, before the next batch overwrites them
    meta.get(currentRecord, to);
    long started = System.nanoTime();
    return reply -> sendLater(packet, reply, to, started);
  };

  BatchUdpLoop(InetAddress host, int port, Responder responder, ServerMetrics metrics, ServerMetrics.Transport queries)
      throws IOException {
    this.fd = NativeUdp.openOrThrow(host.getAddress(), port);
    this.responder = responder;
    this.metrics = metrics;
    this.queries = queries;
  }

  @Override
  public int port() throws IOException {
    return NativeUdp.check(NativeUdp.localPort(fd), "local port");
  }

  @Override
  public void run() {
    while (running) {
      try {
        int n = NativeUdp.receive(fd, in, meta, NativeUdp.BATCH, SLOT);
        if (n <= 0) {
          if (n < 0 && running) {
            metrics.udpFailure();
            LOG.debug("udp receive failed: {}", NativeUdp.describe(-n));
            Thread.sleep(10); // a persistent error must not spin
          }
          continue;
        }
        long started = System.nanoTime();
        for (int i = 0; i < n; i++) {
          answer(i);
        }
        int refused = NativeUdp.send(fd, out, meta, n, SLOT);
        // Every answer of a batch leaves in the one send, so they share its latency.
        long took = System.nanoTime() - started;
        for (int i = 0; i < n; i++) {
          queries.latency(took);
        }
        for (int i = 0; i < refused; i++) {
          metrics.udpFailure();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        metrics.udpFailure();
        LOG.debug("udp batch failed", e);
      }
    }
  }

  /** Answers datagram i into the same slot of the output, or marks it not to be sent. */
  private void answer(int i) {
    int record = i * NativeUdp.META;
    int length = meta.getInt(record);
    meta.putInt(record, -1);
    if (length < 0) {
      queries.count(NOTHING, null); // longer than a slot: dropped
      return;
    }
    byte[] packet = new byte[length];
    in.get(i * SLOT, packet);
    current = packet;
    currentRecord = record;
    byte[] reply = responder.reply(packet, client(record), false, later);
    if (reply == Responder.LATER) {
      return; // not in this batch's send
    }
    queries.count(packet, reply);
    if (reply != null && reply.length <= SLOT) {
      out.put(i * SLOT, reply);
      meta.putInt(record, reply.length);
    } else if (reply != null) {
      metrics.udpFailure(); // the responder keeps UDP answers within the EDNS payload, so never
    }
  }

  /** A forwarded query's reply, from the forwarder's thread, to the address and port in {@code to}. */
  private synchronized void sendLater(byte[] packet, byte[] reply, byte[] to, long started) {
    queries.count(packet, reply);
    queries.latency(System.nanoTime() - started);
    if (reply.length > SLOT) {
      metrics.udpFailure();
      return;
    }
    lateOut.put(0, reply);
    lateMeta.put(0, to);
    lateMeta.putInt(0, reply.length);
    if (NativeUdp.send(fd, lateOut, lateMeta, 1, SLOT) != 0) {
      metrics.udpFailure();
    }
  }

  private InetAddress client(int record) {
    byte family = meta.get(record + 4);
    int length = family == 4 ? 4 : 16;
    boolean same = lastClient != null && lastAddress[16] == family;
    for (int k = 0; same && k < length; k++) {
      same = meta.get(record + 8 + k) == lastAddress[k];
    }
    if (!same) {
      byte[] address = new byte[length];
      meta.get(record + 8, address);
      try {
        lastClient = InetAddress.getByAddress(address);
      } catch (UnknownHostException e) {
        throw new IllegalStateException("an address of 4 or 16 bytes is always valid", e);
      }
      System.arraycopy(address, 0, lastAddress, 0, length);
      lastAddress[16] = family;
    }
    return lastClient;
  }

  @Override
  public void stop() {
    running = false;
    NativeUdp.shutdown(fd);
  }

  @Override
  public void release() {
    NativeUdp.close(fd);
  }
}
