package io.healthmesh.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** Asks an edge over UDP, as a client would, for the pipeline benchmark's names. */
final class Dns {
  private final SimpleResolver resolver;

  Dns(int port) {
    resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", port));
    resolver.setTimeout(Duration.ofSeconds(1));
  }

  /** The first A address answered for {@code label.bench.example.}; empty when there is none. */
  String answer(String label) {
    try {
      Message m = resolver.send(Message.newQuery(Record.newRecord(Name.fromConstantString(label + ".bench.example."),
          Type.A, DClass.IN)));
      return m.getSection(Section.ANSWER).stream().filter(r -> r.getType() == Type.A).map(Record::rdataToString)
          .findFirst().orElse("");
    } catch (IOException e) {
      return "";
    }
  }

  /** Until every sampled record set is answered. */
  void awaitServed(List<Integer> sample, Duration timeout) throws InterruptedException {
    await(timeout, "record sets not served", () -> sample.stream().allMatch(i -> !answer("r" + i).isEmpty()));
  }

  /** Until every sampled record set answers its primary ({@code up}) or its standby. */
  void awaitAnswers(List<Integer> sample, boolean up, Duration timeout) throws InterruptedException {
    await(timeout, "answers did not follow", () -> sample.stream().allMatch(i -> answer("r" + i)
        .equals(up ? EdgeScaleBenchmark.primary(i) : EdgeScaleBenchmark.standby(i))));
  }

  static void await(Duration timeout, String what, java.util.function.BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " within " + timeout);
      }
      Thread.sleep(20);
    }
  }
}
