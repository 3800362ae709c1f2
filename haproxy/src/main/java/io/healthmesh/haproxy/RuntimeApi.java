package io.healthmesh.haproxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * HAProxy's runtime API (its "stats socket" at level admin): one command per connection, the
 * answer read to the end, over TCP ({@code host:port}) or a Unix socket ({@code unix:/path}).
 */
final class RuntimeApi {
  private final String address;
  private final Duration timeout;

  RuntimeApi(String address, Duration timeout) {
    this.address = address;
    this.timeout = timeout;
  }

  String address() {
    return address;
  }

  /** The answer to one command; an IOException when HAProxy cannot be reached. */
  String run(String command) throws IOException {
    if (address.startsWith("unix:")) {
      try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
        channel.connect(UnixDomainSocketAddress.of(address.substring(5)));
        channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
        return new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
      }
    }
    int colon = address.lastIndexOf(':');
    SocketAddress target = new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    try (Socket socket = new Socket()) {
      socket.connect(target, (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
