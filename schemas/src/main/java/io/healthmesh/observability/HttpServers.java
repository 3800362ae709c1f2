package io.healthmesh.observability;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * The JDK's HTTP server, made safe to face slow clients. Left to its defaults it waits forever
 * for a request's headers and body on a pool thread, so one client that stops half way through
 * blocks a single-threaded server for good. Here a request must arrive within
 * {@link #MAX_REQUEST_TIME} and a response be taken within {@link #MAX_RESPONSE_TIME}, or the
 * connection is closed, and the pool has enough threads that a few such clients leave the
 * others served meanwhile. (The JDK reads these limits once, from its documented
 * {@code sun.net.httpserver.*} properties, when its server first loads; a value set on the
 * command line wins.)
 */
public final class HttpServers {
  public static final Duration MAX_REQUEST_TIME = Duration.ofSeconds(5);
  public static final Duration MAX_RESPONSE_TIME = Duration.ofSeconds(30);

  static {
    setIfAbsent("sun.net.httpserver.maxReqTime", String.valueOf(MAX_REQUEST_TIME.toSeconds()));
    setIfAbsent("sun.net.httpserver.maxRspTime", String.valueOf(MAX_RESPONSE_TIME.toSeconds()));
  }

  private HttpServers() {}

  /** An unstarted server with {@code threads} pool threads named {@code name}; port 0 picks a free one. */
  public static HttpServer create(String host, int port, int threads, String name) throws IOException {
    return create(host, port, threads, name, null);
  }

  /** As {@link #create(String, int, int, String)}, serving HTTPS with {@code tls} when it is not null. */
  public static HttpServer create(String host, int port, int threads, String name, SSLContext tls)
      throws IOException {
    HttpServer server;
    if (tls == null) {
      server = HttpServer.create(new InetSocketAddress(host, port), 128);
    } else {
      HttpsServer https = HttpsServer.create(
          new InetSocketAddress(host, port), 128);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      server = https;
    }
    server.setExecutor(Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    }));
    return server;
  }

  /** Stops {@code server} and its pool. */
  public static void stop(HttpServer server) {
    server.stop(0);
    ((ExecutorService) server.getExecutor()).shutdownNow();
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}
