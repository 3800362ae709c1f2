package io.healthmesh.cli.probe;

import io.healthmesh.config.HealthCheckProtocol;
import io.healthmesh.config.HealthCheckSpec;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * TCP, SSL, HTTP and HTTPS checks on Netty's event loops: a new connection per check, as the
 * cloud's health checks make (a pooled connection would pass while the server refuses new ones),
 * and no thread waiting while a server answers. With the JDK's client an HTTP check cost a
 * thread's hand-offs, 380 µs of CPU, and the prober could not keep 3,333 checks a second on two
 * cores (docs/benchmarks.md).
 */
final class LoopChecks implements AutoCloseable {
  private final ProberTls tls;
  private final EventLoopGroup loops;
  private final Class<? extends Channel> channelType;

  LoopChecks(ProberTls tls, int threads) {
    this.tls = tls;
    DefaultThreadFactory names = new DefaultThreadFactory("prober-loop", true);
    if (Epoll.isAvailable()) {
      loops = new MultiThreadIoEventLoopGroup(threads, names, EpollIoHandler.newFactory());
      channelType = EpollSocketChannel.class;
    } else {
      loops = new MultiThreadIoEventLoopGroup(threads, names, NioIoHandler.newFactory());
      channelType = NioSocketChannel.class;
    }
  }

  EventLoopGroup loops() {
    return loops;
  }

  /** The loop running the calling thread, so a check started by a loop's timer stays on it; else any. */
  private EventLoopGroup here() {
    for (EventExecutor e : loops) {
      if (e.inEventLoop()) {
        return (EventLoop) e;
      }
    }
    return loops;
  }

  /**
   * The check's outcome; completed exceptionally with what went wrong on the way (refused, TLS,
   * {@link TimeoutException} at the check's timeout), which {@link Checker} words.
   */
  CompletableFuture<Checker.Outcome> check(Target target, HealthCheckSpec spec) {
    CompletableFuture<Checker.Outcome> done = new CompletableFuture<>();
    HealthCheckProtocol protocol = spec.getProtocol();
    boolean overTls = protocol == HealthCheckProtocol.HTTPS || protocol == HealthCheckProtocol.SSL;
    boolean http = protocol == HealthCheckProtocol.HTTP || protocol == HealthCheckProtocol.HTTPS;
    Deadline deadline = new Deadline(spec, done);
    ChannelFuture connected = new Bootstrap().group(here()).channel(channelType)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Checker.timeoutMillis(spec))
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            if (overTls) {
              SslHandler tls = new SslHandler(engine(target, spec));
              ch.pipeline().addLast(tls);
              if (!http) {
                tls.handshakeFuture().addListener(f -> deadline.finish(f.isSuccess()
                    ? new Checker.Outcome(true, 0, "TLS handshake ok, " + tls.engine().getSession().getProtocol())
                    : null, f.cause()));
              }
            }
            if (http) {
              ch.pipeline().addLast(new HttpClientCodec(), new Exchange(target, spec, deadline));
            }
            // last: a body that ends with the connection is read before the close counts as a failure
            ch.pipeline().addLast(deadline);
          }
        })
        .connect(new InetSocketAddress(target.address(), target.port()));
    connected.addListener(f -> {
      if (!f.isSuccess()) {
        done.completeExceptionally(f.cause());
      } else if (!overTls && !http) { // TCP, and what the cloud calls other kinds: a connect
        deadline.finish(new Checker.Outcome(true, 0, "TCP connect ok"), null);
      }
    });
    return done;
  }

  private SSLEngine engine(Target target, HealthCheckSpec spec) {
    String host = spec.getHost();
    SSLEngine engine = tls.context(host).createSSLEngine(host.isEmpty() ? target.address() : host, target.port());
    engine.setUseClientMode(true);
    if (!host.isEmpty()) {
      SSLParameters params = engine.getSSLParameters();
      params.setServerNames(List.of(new SNIHostName(host)));
      engine.setSSLParameters(params);
    }
    return engine;
  }

  /**
   * The check's one deadline, for connect, handshake and response together, as its timeout means;
   * and its end: the first outcome or failure decides and closes the connection.
   */
  private static final class Deadline extends ChannelInboundHandlerAdapter {
    private final HealthCheckSpec spec;
    private final CompletableFuture<Checker.Outcome> done;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;

    Deadline(HealthCheckSpec spec, CompletableFuture<Checker.Outcome> done) {
      this.spec = spec;
      this.done = done;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
      timer = ctx.executor().schedule(() -> finish(null, new TimeoutException()), Checker.timeoutMillis(spec),
          TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      timer.cancel(false);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      finish(null, new IOException("the server closed the connection"));
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      finish(null, cause);
    }

    /** The first call decides; later ones (the close it causes, a late timer) find it done. */
    void finish(Checker.Outcome outcome, Throwable failure) {
      if (done.isDone()) {
        return;
      }
      timer.cancel(false);
      ctx.close();
      if (failure == null) {
        done.complete(outcome);
      } else {
        done.completeExceptionally(failure);
      }
    }
  }

  /** One HTTP check's request and what came back of its response: the status and the body's first bytes. */
  private static final class Exchange extends ChannelInboundHandlerAdapter {
    private final Target target;
    private final HealthCheckSpec spec;
    private final Deadline end;
    private final byte[] head = new byte[Checker.RESPONSE_BYTES];
    private int headLength;
    private int status = -1;

    Exchange(Target target, HealthCheckSpec spec, Deadline end) {
      this.target = target;
      this.spec = spec;
      this.end = end;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      String path = spec.getRequestPath().startsWith("/") ? spec.getRequestPath() : "/" + spec.getRequestPath();
      DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path,
          Unpooled.EMPTY_BUFFER);
      request.headers().set(HttpHeaderNames.HOST, spec.getHost().isEmpty()
          ? Checker.hostPart(target.address()) + ":" + target.port() : spec.getHost())
          .set(HttpHeaderNames.USER_AGENT, "healthmesh-prober").set(HttpHeaderNames.ACCEPT, "*/*")
          .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(request).addListener(f -> {
        if (!f.isSuccess()) {
          end.finish(null, f.cause());
        }
      });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
          end.finish(null, new IOException("not an HTTP response: " + object.decoderResult().cause().getMessage()));
          return;
        }
        if (msg instanceof HttpResponse response) {
          status = response.status().code();
        }
        if (msg instanceof HttpContent content) {
          ByteBuf bytes = content.content();
          int n = Math.min(bytes.readableBytes(), head.length - headLength);
          bytes.readBytes(head, headLength, n);
          headLength += n;
        }
        // the rest of a long body is never read: closing drops it
        if (status >= 0 && (msg instanceof LastHttpContent || headLength == head.length)) {
          end.finish(judge(), null);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    private Checker.Outcome judge() {
      if (status < spec.getExpectedStatusMin() || status > spec.getExpectedStatusMax()) {
        return new Checker.Outcome(false, 0, "HTTP " + status + ", expected " + spec.getExpectedStatusMin() + "-"
            + spec.getExpectedStatusMax());
      }
      String wanted = spec.getResponse();
      if (!wanted.isEmpty() && !new String(head, 0, headLength, StandardCharsets.ISO_8859_1).contains(wanted)) {
        return new Checker.Outcome(false, 0, "HTTP " + status + ", but the first " + Checker.RESPONSE_BYTES
            + " bytes of the body lack '" + wanted + "'");
      }
      return new Checker.Outcome(true, 0, "HTTP " + status);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      end.finish(null, new IOException(status < 0 ? "the server closed the connection without a response"
          : "the server closed the connection within the response"));
    }
  }

  @Override
  public void close() {
    // waited for: a check's completion may still publish, and the producer closes next
    loops.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
  }
}
