package io.healthmesh.streams.rules;

import java.util.regex.Pattern;

/** Textual IP address checks that never resolve names. */
public final class Addresses {
  private static final Pattern IPV4 = Pattern.compile(
      "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
  private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]{2,45}");

  private Addresses() {}

  public static boolean isIp(String text) {
    return IPV4.matcher(text).matches() || (text.contains(":") && IPV6.matcher(text).matches());
  }
}
