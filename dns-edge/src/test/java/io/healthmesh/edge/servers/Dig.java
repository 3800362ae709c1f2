package io.healthmesh.edge.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** dig, the client the tests ask with (Debian package bind9-dnsutils). */
public final class Dig {
  private Dig() {}

  /** dig's whole output for one query to {@code port} on loopback; options as dig takes them. */
  public static String ask(int port, String name, String type, String... options) throws Exception {
    List<String> command = new ArrayList<>(List.of("dig", "@127.0.0.1", "-p", String.valueOf(port), name, type,
        "+time=3", "+tries=1"));
    command.addAll(List.of(options));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  /** The answer records only, as dig's {@code +short} prints them. */
  public static List<String> answers(int port, String name, String type, String... options) throws Exception {
    List<String> all = new ArrayList<>(List.of(options));
    all.add("+short");
    String out = ask(port, name, type, all.toArray(String[]::new)).strip();
    return out.isEmpty() ? List.of() : List.of(out.split("\n"));
  }

  /** The status dig reports (NOERROR, NXDOMAIN, REFUSED, SERVFAIL, ...). */
  public static String status(String output) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("status: ([A-Z]+)").matcher(output);
    return m.find() ? m.group(1) : "no reply: " + output;
  }
}
