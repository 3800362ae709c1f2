package io.healthmesh.edge.dnssec;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Locale;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.DSRecord;
import org.xbill.DNS.Name;

/**
 * One DNSSEC key of a zone: its DNSKEY record, its private key and its timing. Algorithms 13
 * (ECDSA P-256 with SHA-256, the default) and 15 (Ed25519), the two that RFC 8624 recommends for
 * signing.
 *
 * @param file the base name of its BIND key files ({@code Kzone.+alg+tag}), without extension
 */
public record ZoneKey(Name zone, DNSKEYRecord dnskey, PrivateKey privateKey, KeyTiming timing, String file) {
  public static final long DEFAULT_TTL = 3600;

  public ZoneKey {
    privateKey = SigningProvider.own(privateKey);
  }

  /** The secure entry point flag: a key-signing key, which signs the DNSKEY set (RFC 4034 2.1.1). */
  public boolean ksk() {
    return (dnskey.getFlags() & DNSKEYRecord.Flags.SEP_KEY) != 0;
  }

  public int tag() {
    return dnskey.getFootprint();
  }

  public int algorithm() {
    return dnskey.getAlgorithm();
  }

  /** The DS record the parent zone publishes for this key (SHA-256, RFC 4509), with {@code ttl}. */
  public DSRecord ds(long ttl) {
    return new DSRecord(zone, DClass.IN, ttl, DNSSEC.Digest.SHA256, dnskey);
  }

  /** A new key pair for {@code zone}, named as {@code dnssec-keygen} names its files. */
  public static ZoneKey generate(Name zone, int algorithm, boolean ksk, long ttl, KeyTiming timing)
      throws GeneralSecurityException {
    KeyPair pair = pairGenerator(algorithm).generateKeyPair();
    int flags = DNSKEYRecord.Flags.ZONE_KEY | (ksk ? DNSKEYRecord.Flags.SEP_KEY : 0);
    DNSKEYRecord dnskey;
    try {
      dnskey = new DNSKEYRecord(zone, DClass.IN, ttl, flags, DNSKEYRecord.Protocol.DNSSEC, algorithm, pair.getPublic());
    } catch (DNSSEC.DNSSECException e) {
      throw new GeneralSecurityException(e.getMessage(), e);
    }
    return new ZoneKey(zone, dnskey, pair.getPrivate(), timing, fileName(zone, algorithm, dnskey.getFootprint()));
  }

  /** BIND's base name: {@code K<zone>.+<algorithm>+<tag>}. */
  static String fileName(Name zone, int algorithm, int tag) {
    return String.format("K%s+%03d+%05d", zone.toString().toLowerCase(Locale.ROOT), algorithm, tag);
  }

  /** This key with other timing (a successor's, a retirement's). */
  public ZoneKey withTiming(KeyTiming next) {
    return new ZoneKey(zone, dnskey, privateKey, next, file);
  }

  private static KeyPairGenerator pairGenerator(int algorithm) throws GeneralSecurityException {
    if (algorithm == DNSSEC.Algorithm.ECDSAP256SHA256) {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g;
    }
    if (algorithm == DNSSEC.Algorithm.ED25519) {
      return KeyPairGenerator.getInstance("Ed25519");
    }
    throw new GeneralSecurityException("algorithm " + algorithm + " is not supported: use 13 (ECDSAP256SHA256) or "
        + "15 (ED25519)");
  }

  /** The private key's bytes as BIND writes them: P-256's scalar in 32 bytes, Ed25519's seed. */
  byte[] privateBytes() {
    if (privateKey instanceof ECPrivateKey ec) {
      return fixed(ec.getS(), 32);
    }
    return SigningProvider.ed25519Seed(privateKey);
  }

  private static byte[] fixed(BigInteger n, int length) {
    byte[] raw = n.toByteArray();
    if (raw.length == length) {
      return raw;
    }
    byte[] out = new byte[length];
    int from = Math.max(0, raw.length - length);
    System.arraycopy(raw, from, out, length - (raw.length - from), raw.length - from);
    return out;
  }

  @Override
  public String toString() {
    return file + (ksk() ? " (KSK)" : " (ZSK)");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ZoneKey k && k.file.equals(file) && k.timing.equals(timing)
        && Arrays.equals(k.dnskey.getKey(), dnskey.getKey());
  }

  @Override
  public int hashCode() {
    return file.hashCode();
  }
}
