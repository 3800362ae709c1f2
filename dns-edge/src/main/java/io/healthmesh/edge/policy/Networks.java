package io.healthmesh.edge.policy;

import io.healthmesh.net.Cidr;
import java.util.ArrayList;
import java.util.List;

/** Client networks of a policy, matched by longest prefix where several policies cover a client. */
public record Networks(List<Cidr> cidrs) {
  public static final Networks NONE = new Networks(List.of());

  public Networks {
    cidrs = List.copyOf(cidrs);
  }

  /** Reads CIDRs that the policy's rules checked before; one that does not parse is left out. */
  public static Networks parse(List<String> texts) {
    List<Cidr> cidrs = new ArrayList<>();
    for (String text : texts) {
      try {
        cidrs.add(Cidr.parse(text));
      } catch (IllegalArgumentException e) {
        // checked by PolicyRules before the policy was taken
      }
    }
    return new Networks(cidrs);
  }

  /** Whether any of these networks holds {@code address}. */
  public boolean contains(byte[] address) {
    for (Cidr cidr : cidrs) {
      if (cidr.contains(address, address.length * 8)) {
        return true;
      }
    }
    return false;
  }

  /** The longest prefix of these networks that holds {@code address}; -1 when none does. */
  public int match(byte[] address) {
    int best = -1;
    for (Cidr cidr : cidrs) {
      if (cidr.prefix() > best && cidr.contains(address, address.length * 8)) {
        best = cidr.prefix();
      }
    }
    return best;
  }

  /**
   * The longest prefix of these networks that overlaps any of {@code others}: how a client
   * admitted by inbound forwarding, who stands for the policy's whole networks, is matched.
   */
  public int match(Networks others) {
    int best = -1;
    for (Cidr cidr : cidrs) {
      for (Cidr other : others.cidrs) {
        if (cidr.prefix() > best && overlap(cidr, other)) {
          best = cidr.prefix();
        }
      }
    }
    return best;
  }

  static boolean overlap(Cidr a, Cidr b) {
    return a.contains(b.network(), b.prefix()) || b.contains(a.network(), a.prefix());
  }
}
