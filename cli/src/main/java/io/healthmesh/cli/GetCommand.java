package io.healthmesh.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.healthmesh.cli.config.AvroJson;
import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceKind;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code get}: show stored resources as a table, or as YAML/JSON that {@code apply} takes back. */
@Command(name = "get", mixinStandardHelpOptions = true, description = {
    "Show resources as stored in the config topics.",
    "-o yaml and -o json print documents that apply takes back unchanged (fields at their default are left out)."})
final class GetCommand implements Callable<Integer> {
  static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build());
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  /** A table row's summary: the resource's fields as one line of JSON, cut to this many characters. */
  private static final int SUMMARY_WIDTH = 100;

  enum Format { table, yaml, json }

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Parameters(index = "0", paramLabel = "KIND", description = "A resource kind, its plural or short name, or all.")
  String kind;

  @Parameters(index = "1", arity = "0..1", paramLabel = "NAME",
      description = "One resource (a record set is zone/name/type).")
  String name;

  @Option(names = {"-o", "--output"}, defaultValue = "table", description = "table, yaml or json (default: ${DEFAULT-VALUE}).")
  Format format;

  @Option(names = "--timings", description = "Print to stderr how long each step took.")
  boolean timings;

  @Override
  public Integer call() throws Exception {
    Timings steps = new Timings(timings);
    List<ResourceKind> kinds = kind.equalsIgnoreCase("all") ? Arrays.asList(ResourceKind.values())
        : List.of(ResourceKind.parse(kind).orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(),
            "unknown kind '" + kind + "'; kinds: " + ResourceKind.names())));
    List<String> warnings = new ArrayList<>();
    // Only the kinds asked for; with a name, only the partition that holds it, and its records alone decoded.
    ConfigTopics topics = new ConfigTopics(cluster.client(), cluster.registry());
    if (format == Format.table && name == null) {
      // a table of everything keeps each resource's line alone, made as its record is read
      Map<ResourceKind, SortedMap<String, String>> lines =
          topics.summaries(EnumSet.copyOf(kinds), SUMMARY_WIDTH, warnings);
      steps.step("config topics");
      warnings.forEach(w -> spec.commandLine().getErr().println("warning: " + w));
      table(spec.commandLine().getOut(), (rows, out) -> kinds.forEach(k -> lines.get(k)
          .forEach((key, summary) -> rows.row(out, k.kindName(), key, summary))));
      steps.step("output");
      steps.print(spec.commandLine().getErr());
      return 0;
    }
    Catalog catalog = name == null ? topics.read(EnumSet.copyOf(kinds), warnings)
        : topics.readNamed(EnumSet.copyOf(kinds), name, warnings);
    steps.step("config topics");
    warnings.forEach(w -> spec.commandLine().getErr().println("warning: " + w));
    List<Resource> found = new ArrayList<>();
    for (ResourceKind k : kinds) {
      for (Map.Entry<String, SpecificRecord> e : catalog.all(k).entrySet()) {
        if (name == null || name.equals(e.getKey())) {
          found.add(new Resource(k, e.getKey(), e.getValue(), null));
        }
      }
    }
    if (name != null && found.isEmpty()) {
      spec.commandLine().getErr().println(kinds.get(0).kindName() + " '" + name + "' not found");
      steps.print(spec.commandLine().getErr());
      return 1;
    }
    print(spec.commandLine().getOut(), found);
    steps.step("output");
    steps.print(spec.commandLine().getErr());
    return 0;
  }

  /** A resource as a document: {@code kind} first, then its fields. */
  static ObjectNode document(ResourceKind kind, SpecificRecord value) {
    ObjectNode doc = YAML.createObjectNode().put("kind", kind.kindName());
    doc.setAll(AvroJson.write(value, kind.identity()));
    return doc;
  }

  /** A resource as the YAML document {@code apply} takes back. */
  static String yaml(ResourceKind kind, SpecificRecord value) {
    try {
      return YAML.writeValueAsString(document(kind, value));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void print(PrintWriter out, List<Resource> resources) throws Exception {
    switch (format) {
      case yaml -> ApplyCommand.printInOrder(out, resources.size(), i -> (i > 0 ? "---\n" : "")
          + yaml(resources.get(i).kind(), resources.get(i).value()));
      case json -> {
        List<ObjectNode> documents = resources.stream().map(r -> document(r.kind(), r.value())).toList();
        out.println(JSON.writeValueAsString(documents.size() == 1 && name != null ? documents.get(0)
            : JSON.createArrayNode().addAll(documents)));
      }
      case table -> table(out, (rows, to) -> resources.forEach(r -> rows.row(to, r.kind().kindName(), r.key(),
          AvroJson.summary(r.value(), r.kind().identity(), SUMMARY_WIDTH))));
    }
    out.flush();
  }

  /** The table of resources: its header, then the rows {@code rows} writes. */
  private static void table(PrintWriter out, BiConsumer<Columns, PrintWriter> rows) {
    Columns table = new Columns(24, 40);
    table.row(out, "KIND", "NAME", "SUMMARY");
    rows.accept(table, out);
    out.flush();
  }
}
