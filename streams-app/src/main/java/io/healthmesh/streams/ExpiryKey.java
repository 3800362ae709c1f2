package io.healthmesh.streams;

/**
 * Keys of the stale-endpoint index: the expiry time zero-padded so that the store's byte order is
 * time order, then the endpoint. A range scan up to the stream time finds exactly the due ones.
 */
final class ExpiryKey {
  static final String MIN = "";

  private ExpiryKey() {}

  static String of(long expiry, String endpointKey) {
    return String.format("%019d|%s", expiry, endpointKey);
  }

  /** The greatest key of any endpoint expiring at or before {@code time}. */
  static String upTo(long time) {
    return String.format("%019d|\uffff", time);
  }

  static long expiryOf(String key) {
    return Long.parseLong(key.substring(0, 19));
  }
}
