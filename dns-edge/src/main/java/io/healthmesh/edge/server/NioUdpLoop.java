package io.healthmesh.edge.server;

import io.healthmesh.edge.answer.Responder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A UDP loop on a JDK channel: one system call per datagram each way, on any platform. */
final class NioUdpLoop implements UdpLoop {
  private static final Logger LOG = LoggerFactory.getLogger(NioUdpLoop.class);
  private final DatagramChannel channel;
  private final Responder responder;
  private final ServerMetrics metrics;
  private final ServerMetrics.Transport queries;
  private volatile boolean running = true;
  /** The query being answered, for {@link #later}: read on this loop's thread only. */
  private byte[] current;
  private SocketAddress currentClient;
  private long currentStarted;
  private final Responder.Later later = () -> {
    byte[] packet = current;
    SocketAddress client = currentClient;
    long started = currentStarted;
    return reply -> sendLater(packet, reply, client, started);
  };

  /** @param reusePort whether other loops share the port; false when the platform cannot */
  NioUdpLoop(InetSocketAddress address, boolean reusePort, Responder responder, ServerMetrics metrics,
      ServerMetrics.Transport queries) throws IOException {
    this.channel = DatagramChannel.open();
    this.responder = responder;
    this.metrics = metrics;
    this.queries = queries;
    try {
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      if (reusePort) {
        channel.setOption(StandardSocketOptions.SO_REUSEPORT, true);
      }
      channel.bind(address);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  static boolean canSharePort() throws IOException {
    try (DatagramChannel c = DatagramChannel.open()) {
      return c.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT);
    }
  }

  @Override
  public int port() throws IOException {
    return ((InetSocketAddress) channel.getLocalAddress()).getPort();
  }

  @Override
  public void run() {
    // Direct buffers: the kernel copies straight into them, with no extra heap-to-native copy.
    ByteBuffer in = ByteBuffer.allocateDirect(65535);
    ByteBuffer out = ByteBuffer.allocateDirect(65535);
    while (running) {
      try {
        in.clear();
        SocketAddress client = channel.receive(in);
        long started = System.nanoTime();
        in.flip();
        byte[] packet = new byte[in.remaining()];
        in.get(packet);
        current = packet;
        currentClient = client;
        currentStarted = started;
        byte[] reply = responder.reply(packet, ((InetSocketAddress) client).getAddress(), false, later);
        if (reply == Responder.LATER) {
          continue;
        }
        queries.query(packet, reply, started);
        if (reply != null) {
          out.clear();
          out.put(reply).flip();
          channel.send(out, client);
        }
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException | RuntimeException e) {
        metrics.udpFailure();
        LOG.debug("udp packet failed", e);
      }
    }
  }

  /** A forwarded query's reply, from the forwarder's thread: a channel sends from any thread. */
  private void sendLater(byte[] packet, byte[] reply, SocketAddress client, long started) {
    queries.query(packet, reply, started);
    try {
      channel.send(ByteBuffer.wrap(reply), client);
    } catch (IOException | RuntimeException e) {
      metrics.udpFailure();
      LOG.debug("udp reply failed", e);
    }
  }

  @Override
  public void stop() {
    running = false;
    release(); // closing the channel is what wakes a blocked receive
  }

  @Override
  public void release() {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("closing", e);
    }
  }
}
