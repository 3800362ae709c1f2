package io.healthmesh.streams;

/**
 * Keys of the stale-endpoint index: the expiry time zero-padded so that the store's byte order is
 * time order, then the endpoint. A range scan up to the stream time finds exactly the due ones.
 */
final class ExpiryKey {
  static final String MIN = "";

  private ExpiryKey() {}

  static String of(long expiry, String endpointKey) {
    return padded(expiry) + "|" + endpointKey;
  }

  /** The greatest key of any endpoint expiring at or before {@code time}. */
  static String upTo(long time) {
    return padded(time) + "|\uffff";
  }

  private static String padded(long time) {
    String digits = Long.toString(time);
    return "0".repeat(19 - digits.length()) + digits;
  }

  static long expiryOf(String key) {
    return Long.parseLong(key.substring(0, 19));
  }
}
