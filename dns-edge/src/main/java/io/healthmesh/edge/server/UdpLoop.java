package io.healthmesh.edge.server;

import java.io.IOException;

/** One UDP socket and the loop of the thread that serves it; nothing it meets stops the loop. */
interface UdpLoop extends Runnable {
  int port() throws IOException;

  /** Makes {@link #run} return soon. */
  void stop();

  /** Frees the socket, once the loop's thread has left {@link #run}. */
  void release();
}
