package io.healthmesh.cli;

import static org.awaitility.Awaitility.await;

import io.healthmesh.cli.launch.Demo;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** What a running demo's first edge answers, asked over UDP as a client would. */
final class DemoAnswers {
  private DemoAnswers() {}

  /** Until at least 15 of 20 A answers for {@code name}.example.internal. are {@code address}. */
  static void awaitMajority(Demo demo, String what, String name, String address, Duration timeout) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", demo.edges().get(0).port()));
    resolver.setTimeout(Duration.ofSeconds(2));
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString(name + ".example.internal."), Type.A, DClass.IN));
    await(what + ": " + name + " answers " + address).atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
      int hits = 0;
      for (int i = 0; i < 20; i++) {
        for (Record r : resolver.send(query).getSection(Section.ANSWER)) {
          hits += r.rdataToString().equals(address) ? 1 : 0;
        }
      }
      return hits >= 15;
    });
  }
}
