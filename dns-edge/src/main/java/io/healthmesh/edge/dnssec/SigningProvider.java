package io.healthmesh.edge.dnssec;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Security;
import java.security.spec.PKCS8EncodedKeySpec;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/**
 * The JCA provider the edge signs with: Bouncy Castle, whose ECDSA P-256 signs in about a fifth of
 * the JDK 17 provider's time and whose Ed25519 in about a fourteenth (docs/benchmarks.md). dnsjava
 * still makes every signature ({@code DNSSEC.sign} with this provider's name); only the arithmetic
 * is Bouncy Castle's.
 */
final class SigningProvider {
  static final String NAME = BouncyCastleProvider.PROVIDER_NAME;

  static {
    if (Security.getProvider(NAME) == null) {
      Security.addProvider(new BouncyCastleProvider());
    }
  }

  private SigningProvider() {}

  /** The same key as the provider's own object, so signing converts nothing. */
  static PrivateKey own(PrivateKey key) {
    Provider provider = Security.getProvider(NAME);
    if (key.getClass().getName().startsWith("org.bouncycastle.")) {
      return key;
    }
    try {
      return KeyFactory.getInstance(key.getAlgorithm().equals("EC") ? "EC" : "Ed25519", provider)
          .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot use a " + key.getAlgorithm() + " key for signing: " + e.getMessage(), e);
    }
  }

  /** An Ed25519 key's 32-byte seed, as BIND's key file holds it (RFC 8410's inner octet string). */
  static byte[] ed25519Seed(PrivateKey key) {
    try {
      return ASN1OctetString.getInstance(PrivateKeyInfo.getInstance(key.getEncoded()).parsePrivateKey()).getOctets();
    } catch (IOException e) {
      throw new IllegalStateException("an Ed25519 key without its seed: " + e.getMessage(), e);
    }
  }
}
