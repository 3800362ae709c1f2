package io.healthmesh.net;

import java.util.ArrayList;
import java.util.List;

/**
 * IP address literals, read strictly and written in one canonical form (RFC 5952 for IPv6), so
 * that every component matches addresses the same way: {@code FD00:113:0:0::11} in a health check
 * is the rrdata {@code fd00:113::11}. Parsing never resolves names.
 */
public final class IpAddress {
  private IpAddress() {}

  /** The address's 4 or 16 bytes, or null when {@code text} is not an IPv4 or IPv6 literal. */
  public static byte[] parse(String text) {
    if (text == null || text.isEmpty() || text.length() > 45) {
      return null;
    }
    return text.indexOf(':') < 0 ? parse4(text) : parse6(text);
  }

  /** The canonical text of {@code text}, or null when it is not an IP literal. */
  public static String canonical(String text) {
    byte[] bytes = parse(text);
    if (bytes == null) {
      return null;
    }
    // The IPv4 reader takes only plain decimal without leading zeros: what it accepts is canonical.
    return bytes.length == 4 ? text : format(bytes);
  }

  /** {@code text} in canonical form when it is an IP literal, otherwise unchanged. */
  public static String canonicalOrSame(String text) {
    String canonical = canonical(text);
    return canonical == null ? text : canonical;
  }

  /** Dotted quad for 4 bytes; RFC 5952 for 16: lower case, no leading zeros, the longest zero run as {@code ::}. */
  public static String format(byte[] bytes) {
    if (bytes.length == 4) {
      return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = (bytes[2 * i] & 0xff) << 8 | (bytes[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1; // a single zero group is not compressed (RFC 5952 4.2.2)
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }

  private static byte[] parse4(String text) {
    byte[] bytes = new byte[4];
    int part = 0;
    int value = -1;
    int digits = 0;
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : '.';
      if (c == '.') {
        if (digits == 0 || part == 4) {
          return null;
        }
        bytes[part++] = (byte) value;
        value = -1;
        digits = 0;
      } else if (c >= '0' && c <= '9') {
        if (digits > 0 && value == 0) {
          return null; // a leading zero reads as octal to some parsers: refuse the ambiguity
        }
        value = (value < 0 ? 0 : value * 10) + (c - '0');
        if (++digits > 3 || value > 255) {
          return null;
        }
      } else {
        return null;
      }
    }
    return part == 4 ? bytes : null;
  }

  private static byte[] parse6(String text) {
    int gap = text.indexOf("::");
    if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    List<Integer> head = groups(gap < 0 ? text : text.substring(0, gap), gap < 0);
    List<Integer> tail = gap < 0 ? List.of() : groups(text.substring(gap + 2), true);
    if (head == null || tail == null) {
      return null;
    }
    int count = head.size() + tail.size();
    if (gap < 0 ? count != 8 : count > 7) {
      return null;
    }
    byte[] bytes = new byte[16];
    for (int i = 0; i < head.size(); i++) {
      put(bytes, i, head.get(i));
    }
    for (int i = 0; i < tail.size(); i++) {
      put(bytes, 8 - tail.size() + i, tail.get(i));
    }
    return bytes;
  }

  /** 16-bit groups of one side of {@code ::}; a dotted quad may end the address (two groups). */
  private static List<Integer> groups(String text, boolean mayEndWithIpv4) {
    List<Integer> groups = new ArrayList<>();
    if (text.isEmpty()) {
      return groups;
    }
    String[] parts = text.split(":", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (i == parts.length - 1 && mayEndWithIpv4 && part.indexOf('.') >= 0) {
        byte[] v4 = parse4(part);
        if (v4 == null) {
          return null;
        }
        groups.add((v4[0] & 0xff) << 8 | (v4[1] & 0xff));
        groups.add((v4[2] & 0xff) << 8 | (v4[3] & 0xff));
        continue;
      }
      if (part.isEmpty() || part.length() > 4) {
        return null;
      }
      int value = 0;
      for (int k = 0; k < part.length(); k++) {
        int digit = Character.digit(part.charAt(k), 16);
        if (digit < 0) {
          return null;
        }
        value = value << 4 | digit;
      }
      groups.add(value);
    }
    return groups;
  }

  private static void put(byte[] bytes, int group, int value) {
    bytes[2 * group] = (byte) (value >> 8);
    bytes[2 * group + 1] = (byte) value;
  }
}
