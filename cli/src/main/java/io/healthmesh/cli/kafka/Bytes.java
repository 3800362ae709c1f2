package io.healthmesh.cli.kafka;

/** Searching a record's bytes before deciding to decode it. */
public final class Bytes {
  private Bytes() {}

  /** Whether {@code sought} occurs in {@code bytes}; Avro writes a string as its UTF-8 bytes, so a name shows. */
  public static boolean contains(byte[] bytes, byte[] sought) {
    if (sought.length == 0) {
      return true;
    }
    byte first = sought[0];
    for (int i = 0, last = bytes.length - sought.length; i <= last; i++) {
      if (bytes[i] != first) {
        continue;
      }
      int j = 1;
      while (j < sought.length && bytes[i + j] == sought[j]) {
        j++;
      }
      if (j == sought.length) {
        return true;
      }
    }
    return false;
  }
}
