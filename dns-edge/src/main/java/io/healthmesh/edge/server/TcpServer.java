package io.healthmesh.edge.server;

import io.healthmesh.edge.answer.Responder;
import io.healthmesh.observability.Periodic;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TCP listener (RFC 7766): length-prefixed messages, several queries per connection. Following
 * its section 6.2.3, no client can hold the listener: a client address gets a bounded share of
 * the connections, a connection that waits too long for its next query or takes too long over
 * one is closed, and when every slot is taken a new connection closes the oldest idle one
 * (failing that, the slowest unfinished query) instead of being refused. A client at its share
 * makes room the same way among its own connections: a resolver that keeps idle connections
 * open is not refused a new one while one of its own sits idle.
 */
final class TcpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpServer.class);
  private final ServerSocket server;
  private final ExecutorService connections = Executors.newCachedThreadPool(r -> daemon(r, "dns-tcp"));
  private final TcpLimits limits;
  private final Set<Connection> open = ConcurrentHashMap.newKeySet();
  private final Map<InetAddress, AtomicInteger> perClient = new ConcurrentHashMap<>();
  private final Responder responder;
  private final ServerMetrics metrics;
  private final Periodic reaper;
  private final ServerMetrics.Transport queries;
  private final Thread acceptor;

  TcpServer(String host, int port, TcpLimits limits, Responder responder, ServerMetrics metrics) throws IOException {
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(host, port), 128);
    this.limits = limits;
    this.responder = responder;
    this.metrics = metrics;
    this.queries = metrics.transport("tcp");
    long every = Math.max(10, Math.min(limits.idleTimeout().toMillis(), limits.messageTimeout().toMillis()) / 4);
    this.reaper = Periodic.start("dns-tcp-reaper", this::closeOverdue, Duration.ofMillis(every), Duration.ofMillis(every));
    this.acceptor = daemon(this::accept, "dns-tcp-accept");
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        if (!server.isClosed()) {
          metrics.tcpFailure();
        }
        continue;
      }
      InetAddress client = socket.getInetAddress();
      AtomicInteger share = perClient.computeIfAbsent(client, c -> new AtomicInteger());
      if (share.incrementAndGet() > limits.maxPerClient() && !closeOldestIdleOf(client)) {
        release(client, share);
        metrics.tcpClosed("client_limit");
        quietClose(socket);
        continue;
      }
      if (open.size() >= limits.maxConnections() && !closeOldest()) {
        release(client, share);
        metrics.tcpClosed("full");
        quietClose(socket);
        continue;
      }
      Connection c = new Connection(socket);
      open.add(c);
      connections.execute(() -> {
        try {
          serve(c);
        } catch (IOException | RuntimeException e) {
          LOG.debug("tcp connection ended", e);
        } finally {
          open.remove(c);
          c.close();
          release(client, share);
        }
      });
    }
  }

  private void release(InetAddress client, AtomicInteger share) {
    if (share.decrementAndGet() <= 0) {
      perClient.remove(client, share);
    }
  }

  private void serve(Connection c) throws IOException {
    c.socket.setTcpNoDelay(true);
    InputStream in = new BufferedInputStream(c.socket.getInputStream());
    OutputStream out = c.socket.getOutputStream();
    InetAddress client = c.socket.getInetAddress();
    while (true) {
      c.state(Connection.IDLE);
      int high = in.read();
      if (high < 0) {
        return; // the client is done
      }
      c.state(Connection.BUSY);
      int low = in.read();
      if (low < 0) {
        return;
      }
      byte[] packet = new byte[high << 8 | low];
      if (in.readNBytes(packet, 0, packet.length) < packet.length) {
        return;
      }
      long started = System.nanoTime();
      byte[] reply = responder.reply(packet, client, true);
      queries.query(packet, reply, started);
      if (reply == null) {
        return; // not a query we can answer: RFC 7766 lets us close
      }
      byte[] framed = new byte[reply.length + 2];
      framed[0] = (byte) (reply.length >>> 8);
      framed[1] = (byte) reply.length;
      System.arraycopy(reply, 0, framed, 2, reply.length);
      out.write(framed); // still BUSY: a client that does not read its answer times out too
    }
  }

  /** Closes connections idle or busy with one message for longer than allowed. */
  private void closeOverdue() {
    long now = System.nanoTime();
    for (Connection c : open) {
      long limit = c.state == Connection.IDLE ? limits.idleTimeout().toNanos() : limits.messageTimeout().toNanos();
      if (now - c.since > limit) {
        metrics.tcpClosed(c.state == Connection.IDLE ? "idle" : "slow");
        evict(c);
      }
    }
  }

  /** Makes room for a new connection: the longest idle one goes, or else the longest busy one. */
  private boolean closeOldest() {
    Connection oldest = open.stream()
        .min(Comparator.comparingInt((Connection c) -> c.state).thenComparingLong(c -> c.since))
        .orElse(null);
    if (oldest == null) {
      return false;
    }
    metrics.tcpClosed("evicted");
    evict(oldest);
    return true;
  }

  /** Makes room within a client's share: its longest idle connection goes; none idle, none goes. */
  private boolean closeOldestIdleOf(InetAddress client) {
    Connection oldest = open.stream().filter(c -> c.state == Connection.IDLE && c.client.equals(client))
        .min(Comparator.comparingLong(c -> c.since)).orElse(null);
    if (oldest == null) {
      return false;
    }
    metrics.tcpClosed("client_evicted");
    evict(oldest);
    return true;
  }

  private void evict(Connection c) {
    open.remove(c); // its serving thread ends on the closed socket and releases the client's share
    c.close();
  }

  private static void quietClose(Closeable socket) {
    try {
      socket.close();
    } catch (IOException e) {
      LOG.debug("closing", e);
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    quietClose(server);
    reaper.close();
    connections.shutdownNow();
    open.forEach(Connection::close);
  }

  /** One open connection and what it is doing, for the reaper and for eviction. */
  private static final class Connection {
    /** Waiting for the next query; ordered before BUSY, so idle connections are evicted first. */
    static final int IDLE = 0;
    /** Between the first byte of a query and the last byte of its answer. */
    static final int BUSY = 1;
    final Socket socket;
    final InetAddress client;
    volatile int state = IDLE;
    volatile long since = System.nanoTime();

    Connection(Socket socket) {
      this.socket = socket;
      this.client = socket.getInetAddress();
    }

    void state(int next) {
      since = System.nanoTime();
      state = next;
    }

    void close() {
      quietClose(socket);
    }
  }
}
