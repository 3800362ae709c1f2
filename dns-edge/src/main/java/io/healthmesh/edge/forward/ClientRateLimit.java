package io.healthmesh.edge.forward;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A token bucket per client address for forwarded queries, so that no client can turn an edge
 * into a cannon against its upstreams (R-SP-1). Buckets idle long enough to be full again are
 * forgotten, which bounds the memory a spray of source addresses can take.
 */
public final class ClientRateLimit {
  /** Buckets kept before idle ones are swept. */
  static final int SWEEP_ABOVE = 100_000;

  private final double perNano;
  private final double burst;
  private final LongSupplier nanos;
  private final ConcurrentHashMap<InetAddress, Bucket> buckets = new ConcurrentHashMap<>();

  private static final class Bucket {
    double tokens;
    long at;

    Bucket(double tokens, long at) {
      this.tokens = tokens;
      this.at = at;
    }
  }

  /** @param rate per second; 0 lets everything through */
  public ClientRateLimit(int rate, int burst, LongSupplier nanos) {
    this.perNano = rate / 1e9;
    this.burst = Math.max(1, burst);
    this.nanos = nanos;
  }

  /** Takes one token of {@code client}'s; false when it has none. */
  public boolean allow(InetAddress client) {
    if (perNano == 0) {
      return true;
    }
    long now = nanos.getAsLong();
    if (buckets.size() > SWEEP_ABOVE) {
      sweep(now);
    }
    Bucket b = buckets.computeIfAbsent(client, c -> new Bucket(burst, now));
    synchronized (b) {
      b.tokens = Math.min(burst, b.tokens + (now - b.at) * perNano);
      b.at = now;
      if (b.tokens < 1) {
        return false;
      }
      b.tokens--;
      return true;
    }
  }

  /** Forgets the buckets that have refilled: they hold what a new one would. */
  private void sweep(long now) {
    long full = (long) (burst / perNano);
    buckets.entrySet().removeIf(e -> now - e.getValue().at > full);
  }

  int tracked() {
    return buckets.size();
  }
}
