package io.healthmesh.edge.state;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** An address block such as {@code 10.0.0.0/8}; parsing never resolves names. */
public record Cidr(byte[] network, int prefix) {

  public static Cidr parse(String text) {
    int slash = text.indexOf('/');
    String address = slash < 0 ? text : text.substring(0, slash);
    if (!address.matches("[0-9a-fA-F:.]+")) {
      throw new IllegalArgumentException("'" + text + "' is not an address block");
    }
    try {
      byte[] bytes = InetAddress.getByName(address).getAddress();
      int prefix = slash < 0 ? bytes.length * 8 : Integer.parseInt(text.substring(slash + 1));
      if (prefix < 0 || prefix > bytes.length * 8) {
        throw new IllegalArgumentException("'" + text + "' has prefix length out of range");
      }
      return new Cidr(bytes, prefix);
    } catch (UnknownHostException | NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not an address block", e);
    }
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
}
