package io.healthmesh.net;

import java.net.InetAddress;

/** An address block such as {@code 10.0.0.0/8}, read with {@link IpAddress}; parsing never resolves names. */
public record Cidr(byte[] network, int prefix) {

  /** @throws IllegalArgumentException when {@code text} is not an address or an address block */
  public static Cidr parse(String text) {
    int slash = text.indexOf('/');
    byte[] bytes = IpAddress.parse(slash < 0 ? text : text.substring(0, slash));
    if (bytes == null) {
      throw new IllegalArgumentException("'" + text + "' is not an address block");
    }
    int prefix;
    try {
      prefix = slash < 0 ? bytes.length * 8 : Integer.parseInt(text.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not an address block", e);
    }
    if (prefix < 0 || prefix > bytes.length * 8) {
      throw new IllegalArgumentException("'" + text + "' has prefix length out of range");
    }
    return new Cidr(bytes, prefix);
  }

  public boolean contains(InetAddress address) {
    return contains(address.getAddress(), prefix);
  }

  /** Whether the first {@code bits} of {@code address} lie in this block (and bits >= prefix). */
  public boolean contains(byte[] address, int bits) {
    if (address.length != network.length || bits < prefix) {
      return false;
    }
    int full = prefix / 8;
    for (int i = 0; i < full; i++) {
      if (address[i] != network[i]) {
        return false;
      }
    }
    int rest = prefix % 8;
    if (rest == 0) {
      return true;
    }
    int mask = 0xff << (8 - rest) & 0xff;
    return (address[full] & mask) == (network[full] & mask);
  }

  @Override
  public String toString() {
    return IpAddress.format(network) + "/" + prefix;
  }
}
