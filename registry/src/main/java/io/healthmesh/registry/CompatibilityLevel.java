package io.healthmesh.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;

/** Confluent's compatibility levels, decided with Avro's reader/writer rules. */
enum CompatibilityLevel {
  NONE(false, false, false),
  BACKWARD(true, false, false),
  BACKWARD_TRANSITIVE(true, false, true),
  FORWARD(false, true, false),
  FORWARD_TRANSITIVE(false, true, true),
  FULL(true, true, false),
  FULL_TRANSITIVE(true, true, true);

  private final boolean newReadsOld;
  private final boolean oldReadsNew;
  private final boolean transitive;

  CompatibilityLevel(boolean newReadsOld, boolean oldReadsNew, boolean transitive) {
    this.newReadsOld = newReadsOld;
    this.oldReadsNew = oldReadsNew;
    this.transitive = transitive;
  }

  static CompatibilityLevel parse(String text) {
    if (text == null) {
      throw RegistryError.invalidCompatibility("null");
    }
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw RegistryError.invalidCompatibility(text);
    }
  }

  /**
   * Problems that keep {@code candidate} from following {@code previous} (oldest first); empty
   * when it may be registered.
   */
  List<String> problems(Schema candidate, List<Schema> previous) {
    List<String> problems = new ArrayList<>();
    if (previous.isEmpty() || this == NONE) {
      return problems;
    }
    List<Schema> checked = transitive ? previous : List.of(previous.get(previous.size() - 1));
    for (Schema old : checked) {
      if (newReadsOld) {
        describe(SchemaCompatibility.checkReaderWriterCompatibility(candidate, old), "new schema cannot read data written with", problems);
      }
      if (oldReadsNew) {
        describe(SchemaCompatibility.checkReaderWriterCompatibility(old, candidate), "data written with the new schema cannot be read by", problems);
      }
    }
    return problems;
  }

  private static void describe(SchemaPairCompatibility result, String what, List<String> problems) {
    if (result.getType() == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      return;
    }
    result.getResult().getIncompatibilities().forEach(i -> problems.add(what + " an earlier schema: "
        + i.getType() + " at " + i.getLocation() + " (" + i.getMessage() + ")"));
  }
}
