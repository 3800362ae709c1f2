package io.healthmesh.rules;

import java.util.regex.Pattern;

/**
 * Names of resources (backend services, policies, health sources, composite checks, forwarding
 * rules, zones) follow Cloud's rule, an RFC 1035 label: they appear in record keys, entity names
 * and {@code service/endpoint} paths, where a slash, a space or an empty name would be ambiguous.
 */
public final class ResourceNames {
  private static final Pattern LABEL = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");

  private ResourceNames() {}

  /** Null when {@code name} is valid; otherwise the problem, as {@code field: message (rule)}. */
  public static String problem(String field, String name) {
    if (LABEL.matcher(name).matches()) {
      return null;
    }
    return field + ": '" + name + "' is not a valid name: 1 to 63 characters of lower-case letters, digits and '-',"
        + " starting with a letter and not ending with '-' (RFC 1035 label)";
  }
}
