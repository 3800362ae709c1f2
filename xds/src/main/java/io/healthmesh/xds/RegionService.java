package io.healthmesh.xds;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The smallest backend a consumer can reach through xDS: one unary gRPC method,
 * {@code healthmesh.demo.Region/Which}, that answers the region it runs in. The demo runs one per
 * region, and the tests call them through gRPC's own xDS client to see where traffic goes.
 */
public final class RegionService implements AutoCloseable {
  static final MethodDescriptor<String, String> WHICH = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("healthmesh.demo.Region/Which")
      .setRequestMarshaller(new Utf8()).setResponseMarshaller(new Utf8()).build();

  private final Server server;

  private RegionService(Server server) {
    this.server = server;
  }

  /** Serves {@code region} on {@code host:port} (0 picks a free port). */
  public static RegionService start(String host, int port, String region) {
    ServerServiceDefinition service = ServerServiceDefinition.builder("healthmesh.demo.Region")
        .addMethod(WHICH, ServerCalls.asyncUnaryCall((request, reply) -> {
          reply.onNext(region);
          reply.onCompleted();
        })).build();
    try {
      return new RegionService(NettyServerBuilder.forAddress(new InetSocketAddress(host, port)).addService(service)
          .build().start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve region " + region + " on " + host + ":" + port, e);
    }
  }

  /** Asks whichever backend the channel's load balancer picks for its region. */
  public static String which(Channel channel, long timeoutMillis) {
    return which(channel, timeoutMillis, false);
  }

  /** @param waitForReady wait for the channel (its first xDS resources) instead of failing at once */
  public static String which(Channel channel, long timeoutMillis, boolean waitForReady) {
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS);
    return ClientCalls.blockingUnaryCall(channel, WHICH, waitForReady ? options.withWaitForReady() : options, "");
  }

  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.shutdownNow();
  }

  private static final class Utf8 implements MethodDescriptor.Marshaller<String> {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
