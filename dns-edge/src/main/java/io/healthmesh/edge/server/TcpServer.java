package io.healthmesh.edge.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TCP listener (RFC 7766): length-prefixed messages, several queries per connection, an idle
 * timeout, and a bound on open connections beyond which new ones are closed at once.
 */
final class TcpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpServer.class);
  private final ServerSocket server;
  private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "dns-tcp");
    t.setDaemon(true);
    return t;
  });
  private final Semaphore slots;
  private final Duration idleTimeout;
  private final Responder responder;
  private final ServerMetrics metrics;
  private final ServerMetrics.Transport queries;
  private final Thread acceptor;

  TcpServer(String host, int port, int maxConnections, Duration idleTimeout, Responder responder, ServerMetrics metrics)
      throws IOException {
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(host, port), 128);
    this.slots = new Semaphore(maxConnections);
    this.idleTimeout = idleTimeout;
    this.responder = responder;
    this.metrics = metrics;
    this.queries = metrics.transport("tcp");
    this.acceptor = new Thread(this::accept, "dns-tcp-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        if (!slots.tryAcquire()) {
          metrics.failure("tcp-rejected");
          socket.close();
          continue;
        }
        connections.execute(() -> {
          try (socket) {
            serve(socket);
          } catch (IOException | RuntimeException e) {
            LOG.debug("tcp connection ended", e);
          } finally {
            slots.release();
          }
        });
      } catch (IOException e) {
        if (!server.isClosed()) {
          metrics.failure("tcp");
        }
      }
    }
  }

  private void serve(Socket socket) throws IOException {
    socket.setSoTimeout((int) idleTimeout.toMillis());
    socket.setTcpNoDelay(true);
    DataInputStream in = new DataInputStream(socket.getInputStream());
    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
    InetAddress client = socket.getInetAddress();
    while (true) {
      byte[] packet;
      try {
        packet = new byte[in.readUnsignedShort()];
        in.readFully(packet);
      } catch (EOFException | SocketTimeoutException | SocketException e) {
        return; // client done, idle too long, or gone
      }
      long started = System.nanoTime();
      byte[] reply = responder.reply(packet, client, true);
      queries.query(packet, reply, started);
      if (reply == null) {
        return; // not a query we can answer: RFC 7766 lets us close
      }
      out.writeShort(reply.length);
      out.write(reply);
      out.flush();
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing", e);
    }
    connections.shutdownNow();
  }
}
