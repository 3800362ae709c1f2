package io.healthmesh.edge.forward;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/** One query and its reply over a fresh TCP connection (RFC 7766 framing), within a deadline. */
final class TcpExchange {
  private final int timeoutMillis;

  TcpExchange(Duration timeout) {
    this.timeoutMillis = (int) Math.max(1, timeout.toMillis());
  }

  /** @return the reply, or null when the target could not be reached or did not answer in time */
  byte[] ask(InetSocketAddress target, byte[] query) {
    try (Socket socket = new Socket()) {
      socket.setTcpNoDelay(true);
      socket.connect(target, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      byte[] framed = new byte[query.length + 2];
      framed[0] = (byte) (query.length >>> 8);
      framed[1] = (byte) query.length;
      System.arraycopy(query, 0, framed, 2, query.length);
      out.write(framed);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte[] reply = new byte[in.readUnsignedShort()];
      in.readFully(reply);
      return reply.length < 12 ? null : reply;
    } catch (IOException e) {
      return null;
    }
  }
}
