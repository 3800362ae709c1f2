package io.healthmesh.edge.dnssec;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.NamedParameterSpec;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * BIND's key files (R-DNSSEC-3): {@code Kzone.+alg+tag.key} holds the DNSKEY record, and
 * {@code .private} the private key ("Private-key-format: v1.3") with the key's timing. Keys that
 * {@code dnssec-keygen} makes are read here, and keys written here work in BIND's tools.
 */
public final class BindKeyFiles {
  private BindKeyFiles() {}

  /** Reads the key whose public half is {@code keyFile} ({@code .key}) and its {@code .private}. */
  public static ZoneKey read(Path keyFile) throws IOException {
    String base = keyFile.getFileName().toString();
    if (!base.endsWith(".key")) {
      throw new IOException(keyFile + ": not a .key file");
    }
    base = base.substring(0, base.length() - 4);
    DNSKEYRecord dnskey = dnskey(keyFile);
    Map<String, String> fields = fields(keyFile.resolveSibling(base + ".private"));
    int algorithm = Integer.parseInt(field(fields, "Algorithm").split(" ")[0]);
    if (algorithm != dnskey.getAlgorithm()) {
      throw new IOException(base + ": the .private file's algorithm " + algorithm + " is not the DNSKEY's "
          + dnskey.getAlgorithm());
    }
    PrivateKey key;
    try {
      key = privateKey(algorithm, Base64.getDecoder().decode(field(fields, "PrivateKey")));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IOException(base + ".private: unreadable private key: " + e.getMessage(), e);
    }
    KeyTiming timing = new KeyTiming(time(fields, "Created"), time(fields, "Publish"), time(fields, "Activate"),
        time(fields, "Inactive"), time(fields, "Delete"));
    return new ZoneKey(dnskey.getName(), dnskey, key, timing, base);
  }

  /** Every key of {@code zone} in {@code dir}; any file there that cannot be read is an error. */
  public static List<ZoneKey> readZone(Path dir, Name zone) throws IOException {
    KeyDirectory read = KeyDirectory.read(dir);
    if (!read.problems().isEmpty()) {
      throw new IOException(String.join("; ", read.problems()));
    }
    return read.keys().getOrDefault(zone, List.of());
  }

  /**
   * A new key-signing key and a new zone-signing key for {@code zone}, in that order, written into
   * {@code dir}: what a zone needs to be signed.
   */
  public static List<ZoneKey> writeNewPair(Path dir, Name zone, int algorithm, long ttl, KeyTiming timing)
      throws IOException, GeneralSecurityException {
    List<ZoneKey> keys = List.of(ZoneKey.generate(zone, algorithm, true, ttl, timing),
        ZoneKey.generate(zone, algorithm, false, ttl, timing));
    for (ZoneKey key : keys) {
      write(key, dir);
    }
    return keys;
  }

  /** Writes both files into {@code dir}; the private one readable by its owner only. */
  public static void write(ZoneKey key, Path dir) throws IOException {
    Files.createDirectories(dir);
    KeyTiming t = key.timing();
    StringBuilder pub = new StringBuilder();
    pub.append("; This is a ").append(key.ksk() ? "key-signing" : "zone-signing").append(" key, keyid ")
        .append(key.tag()).append(", for ").append(key.zone()).append('\n');
    StringBuilder priv = new StringBuilder("Private-key-format: v1.3\n");
    priv.append("Algorithm: ").append(key.algorithm()).append(" (").append(DNSSEC.Algorithm.string(key.algorithm()))
        .append(")\n");
    priv.append("PrivateKey: ").append(Base64.getEncoder().encodeToString(key.privateBytes())).append('\n');
    String[] names = {"Created", "Publish", "Activate", "Inactive", "Delete"};
    Instant[] times = {t.created(), t.publish(), t.activate(), t.inactive(), t.delete()};
    for (int i = 0; i < names.length; i++) {
      if (times[i] != null) {
        pub.append("; ").append(names[i]).append(": ").append(KeyTiming.format(times[i])).append('\n');
        priv.append(names[i]).append(": ").append(KeyTiming.format(times[i])).append('\n');
      }
    }
    pub.append(key.dnskey().toString()).append('\n');
    Files.writeString(dir.resolve(key.file() + ".key"), pub.toString(), StandardCharsets.US_ASCII);
    Path privatePath = dir.resolve(key.file() + ".private");
    Files.deleteIfExists(privatePath);
    try {
      Files.createFile(privatePath, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(privatePath);
    }
    Files.writeString(privatePath, priv.toString(), StandardCharsets.US_ASCII);
  }

  private static DNSKEYRecord dnskey(Path keyFile) throws IOException {
    // A key file may give no TTL (dnssec-keygen without -L); BIND then uses the zone's default.
    String text = "$TTL " + ZoneKey.DEFAULT_TTL + "\n" + Files.readString(keyFile, StandardCharsets.US_ASCII);
    try (Master master = new Master(new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)),
        Name.root)) {
      for (Record r = master.nextRecord(); r != null; r = master.nextRecord()) {
        if (r instanceof DNSKEYRecord dnskey) {
          return dnskey;
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new IOException(keyFile + ": unreadable: " + e.getMessage(), e);
    }
    throw new IOException(keyFile + ": holds no DNSKEY record");
  }

  private static Map<String, String> fields(Path privateFile) throws IOException {
    Map<String, String> fields = new HashMap<>();
    for (String line : Files.readAllLines(privateFile, StandardCharsets.US_ASCII)) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  private static String field(Map<String, String> fields, String name) throws IOException {
    String value = fields.get(name);
    if (value == null) {
      throw new IOException("the .private file has no " + name + " field");
    }
    return value;
  }

  private static Instant time(Map<String, String> fields, String name) throws IOException {
    String value = fields.get(name);
    try {
      return value == null || value.isEmpty() ? null : KeyTiming.parse(value);
    } catch (RuntimeException e) {
      throw new IOException("the .private file's " + name + " '" + value + "' is not YYYYMMDDHHMMSS");
    }
  }

  private static PrivateKey privateKey(int algorithm, byte[] raw) throws GeneralSecurityException {
    if (algorithm == DNSSEC.Algorithm.ECDSAP256SHA256) {
      AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
      params.init(new ECGenParameterSpec("secp256r1"));
      ECParameterSpec spec = params.getParameterSpec(ECParameterSpec.class);
      return KeyFactory.getInstance("EC").generatePrivate(new ECPrivateKeySpec(new BigInteger(1, raw), spec));
    }
    if (algorithm == DNSSEC.Algorithm.ED25519) {
      return KeyFactory.getInstance("Ed25519").generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, raw));
    }
    throw new GeneralSecurityException("algorithm " + algorithm + " is not supported (13 or 15)");
  }
}
