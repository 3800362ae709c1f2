package io.healthmesh.edge.forward;

import io.healthmesh.observability.Periodic;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends queries on to other name servers and hands back their replies, without blocking the
 * thread that asks (R-SP-1). Each query leaves from one of a few sockets with a random id; a
 * reply counts only from the target it was sent to, with that id and the same question, so an
 * off-path spoofer must guess both port and id. A reply marked truncated is fetched again over
 * TCP. An attempt that times out moves to the next target; when every attempt failed the caller
 * gets null (and answers SERVFAIL).
 */
public final class Forwarder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);
  /** Source ports a query may leave from; one thread reads them all, so more ports cost no threads. */
  private static final int SOCKETS = 8;
  private static final int HEADER = 12;

  private final ForwardSettings settings;
  private final DatagramChannel[] sockets = new DatagramChannel[SOCKETS];
  @SuppressWarnings("unchecked")
  private final AtomicReferenceArray<Exchange>[] slots = new AtomicReferenceArray[SOCKETS];
  /** Attempts by deadline: every attempt waits the same time, so the order they were sent in is the order they expire in. */
  private final ConcurrentLinkedQueue<Attempt> deadlines = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();
  private final Periodic sweeper;
  private final ThreadPoolExecutor tcp;
  private final TcpExchange tcpExchange;
  private final Selector selector;
  private final Thread receiver;
  private final Counter answered;
  private final Counter timedOut;
  private final Counter failed;
  private final Counter overloaded;
  private final Counter viaTcp;
  private final Counter ignored;
  private final Timer latency;
  private volatile boolean running = true;

  /** Gets a forwarded query's reply. */
  public interface Reply {
    /** @param reply with the client's id; null when no target answered in time */
    void done(byte[] reply, InetSocketAddress from);
  }

  /** One attempt of an exchange, and when it times out. */
  private record Attempt(Exchange exchange, int attempt, long deadline) {}

  /** One forwarded query, through its attempts. */
  final class Exchange {
    final byte[] query;
    final List<InetSocketAddress> targets;
    final Reply done;
    final int clientId;
    final int questionEnd;
    final long started = System.nanoTime();
    volatile int attempt;
    volatile int socket;
    volatile int id;
    volatile boolean finished;
    volatile boolean overTcp;

    Exchange(byte[] query, int questionEnd, List<InetSocketAddress> targets, Reply done) {
      this.query = query;
      this.questionEnd = questionEnd;
      this.targets = targets;
      this.done = done;
      this.clientId = u16(query, 0);
    }

    InetSocketAddress target() {
      return targets.get(attempt % targets.size());
    }
  }

  public Forwarder(ForwardSettings settings, MeterRegistry meters) throws IOException {
    this.settings = settings;
    this.answered = counter(meters, "answered");
    this.timedOut = counter(meters, "timeout");
    this.failed = counter(meters, "servfail");
    this.overloaded = counter(meters, "overloaded");
    this.viaTcp = counter(meters, "tcp");
    this.ignored = Counter.builder("healthmesh.dns.forward.replies.ignored").description(
        "upstream datagrams that matched no query waiting (late, duplicate, spoofed)").register(meters);
    this.latency = Timer.builder("healthmesh.dns.forward.latency").description("from sending a query on to its reply")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(20_000)).register(meters);
    meters.gauge("healthmesh.dns.forward.pending", pending);
    this.tcpExchange = new TcpExchange(settings.timeout());
    this.selector = Selector.open();
    try {
      for (int i = 0; i < SOCKETS; i++) {
        sockets[i] = DatagramChannel.open();
        sockets[i].bind(null); // an ephemeral port, on every address: the upstreams may be anywhere
        sockets[i].configureBlocking(false);
        sockets[i].register(selector, SelectionKey.OP_READ, i);
        slots[i] = new AtomicReferenceArray<>(65536);
      }
    } catch (IOException e) {
      close();
      throw e;
    }
    Duration tick = Duration.ofMillis(Math.max(1, settings.timeout().toMillis() / 20));
    this.sweeper = Periodic.start("dns-forward-timeouts", this::expire, tick, tick);
    this.tcp = new ThreadPoolExecutor(0, 32, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024),
        r -> daemon(r, "dns-forward-tcp"));
    this.receiver = daemon(this::receive, "dns-forward-replies");
    receiver.start();
  }

  private static Counter counter(MeterRegistry meters, String result) {
    return Counter.builder("healthmesh.dns.forwarded").tag("result", result)
        .description("queries sent on to other name servers, by how they ended").register(meters);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Forwards {@code query} (a client's, whole) to {@code targets}; {@code done} gets the reply with
   * the client's id, or null when no target answered. Called from any thread; never blocks.
   *
   * @param questionEnd offset just after the query's question
   */
  public void forward(byte[] query, int questionEnd, List<InetSocketAddress> targets, Reply done) {
    if (pending.incrementAndGet() > settings.maxPending() || targets.isEmpty()) {
      pending.decrementAndGet();
      overloaded.increment();
      done.done(null, null);
      return;
    }
    send(new Exchange(query.clone(), questionEnd, targets, done));
  }

  /** Sends the exchange's current attempt over UDP from a random socket with a random free id. */
  private void send(Exchange x) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int tries = 0; tries < 16; tries++) {
      int socket = random.nextInt(SOCKETS);
      int id = random.nextInt(65536);
      if (slots[socket].compareAndSet(id, null, x)) {
        x.socket = socket;
        x.id = id;
        x.query[0] = (byte) (id >>> 8);
        x.query[1] = (byte) id;
        deadlines.add(new Attempt(x, x.attempt, System.nanoTime() + settings.timeout().toNanos()));
        if (x.finished) {
          release(x); // finished by another thread while this attempt was being set up
          return;
        }
        try {
          // Non-blocking: a full socket buffer drops it, and the attempt times out as a lost one would.
          sockets[socket].send(ByteBuffer.wrap(x.query), x.target());
        } catch (IOException e) {
          LOG.debug("forwarding to {} failed", x.target(), e); // the attempt times out and the next target is tried
        }
        return;
      }
    }
    finish(x, null); // 16 random ids in a row taken: far beyond any sane load
  }

  /**
   * One thread for every socket: under load it finds several replies waiting at each wake-up,
   * where a thread per socket would be woken once per reply (measured: 19 to 23 µs of edge CPU a
   * forwarded query against 27 to 30 with four threads, on two cores).
   */
  private void receive() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(65535);
    while (running) {
      try {
        selector.select();
        for (SelectionKey key : selector.selectedKeys()) {
          int socket = (Integer) key.attachment();
          for (SocketAddress from = read(socket, buffer); from != null; from = read(socket, buffer)) {
            accept(socket, buffer, from);
          }
        }
        selector.selectedKeys().clear();
      } catch (ClosedSelectorException | ClosedChannelException e) {
        return;
      } catch (IOException | RuntimeException e) {
        LOG.debug("forwarded reply failed", e);
      }
    }
  }

  private SocketAddress read(int socket, ByteBuffer buffer) throws IOException {
    buffer.clear();
    SocketAddress from = sockets[socket].receive(buffer);
    buffer.flip();
    return from;
  }

  /** One datagram from an upstream: the reply of a query waiting for it, or ignored and counted. */
  private void accept(int socket, ByteBuffer buffer, SocketAddress from) {
    if (buffer.remaining() < HEADER) {
      ignored.increment();
      return;
    }
    byte[] reply = new byte[buffer.remaining()];
    buffer.get(reply);
    Exchange x = slots[socket].get(u16(reply, 0));
    if (x == null || x.overTcp || !x.target().equals(from) || !sameQuestion(x, reply)) {
      ignored.increment();
      return;
    }
    if ((reply[2] & 0x02) != 0) { // TC: the whole answer needs TCP
      release(x);
      overTcp(x);
      return;
    }
    finish(x, reply);
  }

  private void overTcp(Exchange x) {
    int attempt = x.attempt;
    x.overTcp = true;
    viaTcp.increment();
    try {
      tcp.execute(() -> {
        byte[] reply = tcpExchange.ask(x.target(), x.query);
        if (reply != null && u16(reply, 0) == x.id && sameQuestion(x, reply)) {
          finish(x, reply);
        } else {
          x.overTcp = false;
          retry(x, attempt);
        }
      });
    } catch (RejectedExecutionException e) {
      finish(x, null);
    }
  }

  /** The reply is for the question asked: the same bytes up to the question's end, letters in any case. */
  private static boolean sameQuestion(Exchange x, byte[] reply) {
    if (reply.length < x.questionEnd || u16(reply, 4) != 1) {
      return false;
    }
    for (int i = HEADER; i < x.questionEnd; i++) {
      if ((reply[i] | 0x20) != (x.query[i] | 0x20) && reply[i] != x.query[i]) {
        return false;
      }
    }
    return true;
  }

  /** Times out the attempts whose deadline passed, and tries them again on the next target. */
  private void expire() {
    long now = System.nanoTime();
    for (Attempt a = deadlines.peek(); a != null && a.deadline() - now <= 0; a = deadlines.peek()) {
      deadlines.poll();
      Exchange x = a.exchange();
      if (x.finished || x.overTcp || x.attempt != a.attempt()) {
        continue; // done, fetched over TCP, or already tried again
      }
      timedOut.increment();
      release(x);
      retry(x, a.attempt());
    }
  }

  /**
   * Moves the exchange from attempt {@code from} to the next one, once: the timeout sweeper and a
   * failed TCP refetch may both reach here for the same attempt.
   */
  private void retry(Exchange x, int from) {
    synchronized (x) {
      if (x.finished || x.attempt != from) {
        return;
      }
      x.attempt = from + 1;
    }
    if (x.attempt >= settings.attempts()) {
      finish(x, null);
    } else {
      send(x);
    }
  }

  private void release(Exchange x) {
    slots[x.socket].compareAndSet(x.id, x, null);
  }

  private void finish(Exchange x, byte[] reply) {
    synchronized (x) {
      if (x.finished) {
        return;
      }
      x.finished = true;
    }
    release(x);
    pending.decrementAndGet();
    latency.record(System.nanoTime() - x.started, TimeUnit.NANOSECONDS);
    if (reply == null) {
      failed.increment();
    } else {
      answered.increment();
      reply[0] = (byte) (x.clientId >>> 8);
      reply[1] = (byte) x.clientId;
    }
    try {
      x.done.done(reply, reply == null ? null : x.target());
    } catch (RuntimeException e) {
      LOG.debug("handing back a forwarded reply failed", e);
    }
  }

  public ForwardSettings settings() {
    return settings;
  }

  /** Queries waiting for an upstream now. */
  public int pending() {
    return pending.get();
  }

  static int u16(byte[] b, int at) {
    return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
  }

  @Override
  public void close() {
    running = false;
    if (sweeper != null) {
      sweeper.close();
    }
    if (tcp != null) {
      tcp.shutdownNow();
    }
    for (DatagramChannel socket : sockets) {
      try {
        if (socket != null) {
          socket.close();
        }
      } catch (IOException e) {
        LOG.debug("closing", e);
      }
    }
    try {
      selector.close(); // wakes the receiver, which then ends
    } catch (IOException e) {
      LOG.debug("closing", e);
    }
  }
}
