package io.healthmesh.schemas;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * A broker's refusal (authentication failed, or an ACL is missing) told the way an operator
 * fixes it: who was refused, what the broker said, and what the component needs (its
 * {@link KafkaAccess}). A refusal is not a transient failure: retrying it quietly hides a missing
 * ACL until production.
 */
public final class KafkaRefusal {
  private static final Pattern USERNAME = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");

  private KafkaRefusal() {}

  /** The refusal somewhere in {@code e}'s causes, if the broker refused. */
  public static Optional<RuntimeException> of(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AuthenticationException || t instanceof AuthorizationException) {
        return Optional.of((RuntimeException) t);
      }
    }
    return Optional.empty();
  }

  /**
   * {@code e} told as {@link #explain} tells it when the broker refused (the original as its
   * cause), or {@code e} itself: what a component that cannot start throws.
   */
  public static RuntimeException explained(RuntimeException e, KafkaAccess access, Map<String, ?> client) {
    return of(e).<RuntimeException>map(r -> new IllegalStateException(explain(r, access, client), e)).orElse(e);
  }

  /**
   * One line for the log, the exit message and {@code /health/ready}: "Kafka refused User:x
   * (topology): Not authorized to access topics: [a] (the topology reads [a]; ...)".
   */
  public static String explain(RuntimeException refusal, KafkaAccess access, Map<String, ?> client) {
    String what = refusal instanceof AuthenticationException ? "could not authenticate " : "refused ";
    return "Kafka " + what + principal(client) + " (" + access.component() + "): " + refusal.getMessage()
        + resource(refusal) + " (" + access.component() + " " + access.describe()
        + "; healthctl acls --component " + access.component() + " prints its ACLs)";
  }

  /** Which kind of resource was refused, when the exception's type says more than its text. */
  private static String resource(RuntimeException refusal) {
    if (refusal instanceof GroupAuthorizationException g) {
      return g.groupId() == null ? " [consumer group]" : " [consumer group " + g.groupId() + "]";
    }
    if (refusal instanceof TransactionalIdAuthorizationException) {
      return " [transactional id]";
    }
    if (refusal instanceof ClusterAuthorizationException) {
      return " [cluster]";
    }
    if (refusal instanceof TopicAuthorizationException t && !t.unauthorizedTopics().isEmpty()
        && !refusal.getMessage().contains("topics")) {
      return " [topics " + t.unauthorizedTopics() + "]";
    }
    return "";
  }

  /**
   * The principal the client settings authenticate as, as far as they say: the SASL user name,
   * the TLS client certificate, or Kafka's anonymous user on a plaintext listener.
   */
  public static String principal(Map<String, ?> client) {
    Object jaas = client.get("sasl.jaas.config");
    if (jaas != null) {
      Matcher user = USERNAME.matcher(jaas.toString());
      if (user.find()) {
        return "User:" + user.group(1);
      }
      return "the principal of sasl.jaas.config";
    }
    Object protocol = client.get("security.protocol");
    if (protocol != null && protocol.toString().equalsIgnoreCase("SSL") && client.get("ssl.keystore.location") != null) {
      return "the principal of the certificate in " + client.get("ssl.keystore.location");
    }
    return protocol == null || protocol.toString().equalsIgnoreCase("PLAINTEXT") ? "User:ANONYMOUS" : "this client";
  }
}
