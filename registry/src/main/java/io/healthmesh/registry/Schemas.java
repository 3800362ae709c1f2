package io.healthmesh.registry;

import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/** Parsing of submitted schema text. */
final class Schemas {
  private Schemas() {}

  static Schema parse(String text) {
    if (text == null || text.isBlank()) {
      throw RegistryError.invalidSchema("the schema is empty");
    }
    try {
      return new Schema.Parser().parse(text);
    } catch (SchemaParseException | AvroTypeException e) {
      throw RegistryError.invalidSchema(e.getMessage());
    } catch (RuntimeException e) {
      throw RegistryError.invalidSchema(e.toString());
    }
  }

  /**
   * One text per schema however it was written (white space, key order, inlined or referenced
   * names), so that the same schema always gets the same id. Docs stay part of the identity, as
   * in Confluent's registry.
   */
  static String canonical(String text) {
    return parse(text).toString();
  }
}
