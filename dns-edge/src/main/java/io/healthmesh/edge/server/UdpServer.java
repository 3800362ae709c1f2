package io.healthmesh.edge.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * UDP listener: one channel per thread on the same port (SO_REUSEPORT), so receiving takes no
 * lock; each thread receives, asks the responder and sends. Nothing it meets stops the loop.
 */
final class UdpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UdpServer.class);
  private final List<DatagramChannel> channels = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Responder responder;
  private final ServerMetrics metrics;
  private final ServerMetrics.Transport queries;
  private volatile boolean running = true;

  UdpServer(String host, int port, int threadCount, Responder responder, ServerMetrics metrics) throws IOException {
    this.responder = responder;
    this.metrics = metrics;
    this.queries = metrics.transport("udp");
    int bound = port;
    for (int i = 0; i < threadCount; i++) {
      DatagramChannel channel = DatagramChannel.open();
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      if (channel.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT)) {
        channel.setOption(StandardSocketOptions.SO_REUSEPORT, true);
      } else if (i > 0) {
        channel.close();
        break; // one channel then; its thread is the only receiver
      }
      channel.bind(new InetSocketAddress(host, bound));
      bound = ((InetSocketAddress) channel.getLocalAddress()).getPort();
      channels.add(channel);
    }
    for (DatagramChannel channel : channels) {
      Thread t = new Thread(() -> serve(channel), "dns-udp-" + threads.size());
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  int port() throws IOException {
    return ((InetSocketAddress) channels.get(0).getLocalAddress()).getPort();
  }

  private void serve(DatagramChannel channel) {
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
        byte[] reply = responder.reply(packet, ((InetSocketAddress) client).getAddress(), false);
        queries.query(packet, reply, started);
        if (reply != null) {
          out.clear();
          out.put(reply).flip();
          channel.send(out, client);
        }
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException | RuntimeException e) {
        metrics.failure("udp");
        LOG.debug("udp packet failed", e);
      }
    }
  }

  @Override
  public void close() {
    running = false;
    for (DatagramChannel c : channels) {
      try {
        c.close();
      } catch (IOException e) {
        LOG.debug("closing", e);
      }
    }
  }
}
