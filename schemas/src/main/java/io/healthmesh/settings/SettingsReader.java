package io.healthmesh.settings;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Reads a process's settings from {@code [file.properties] [key=value ...]} arguments and checks
 * each value, collecting every problem so that an invalid configuration is rejected whole.
 */
public final class SettingsReader {
  private final Properties properties;
  private final List<String> problems = new ArrayList<>();

  public SettingsReader(Properties properties) {
    this.properties = properties;
  }

  /** Files are loaded in order, then {@code key=value} arguments (a leading {@code --} is dropped); later wins. */
  public static Properties fromArgs(String[] args) throws IOException {
    Properties p = new Properties();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq > 0) {
        p.setProperty(arg.substring(0, eq).replaceFirst("^--", ""), arg.substring(eq + 1));
      } else {
        try (Reader in = Files.newBufferedReader(Path.of(arg))) {
          p.load(in);
        }
      }
    }
    return p;
  }

  /** Every key that starts with {@code prefix}, without it: what a process passes on to its Kafka clients. */
  public Map<String, String> prefixed(String prefix) {
    Map<String, String> out = new HashMap<>();
    properties.stringPropertyNames().stream().filter(k -> k.startsWith(prefix))
        .forEach(k -> out.put(k.substring(prefix.length()), properties.getProperty(k)));
    return out;
  }

  public String string(String key, String defaultValue) {
    return properties.getProperty(key, defaultValue).trim();
  }

  public String required(String key, String meaning) {
    String value = string(key, "");
    if (value.isEmpty()) {
      problems.add(key + ": required (" + meaning + ")");
    }
    return value;
  }

  public int integer(String key, int defaultValue, int min, int max) {
    String text = properties.getProperty(key);
    if (text == null) {
      return defaultValue;
    }
    try {
      int value = Integer.parseInt(text.trim());
      if (value < min || value > max) {
        problems.add(key + ": " + value + " is outside " + min + ".." + max);
      }
      return value;
    } catch (NumberFormatException e) {
      problems.add(key + ": '" + text + "' is not a whole number");
      return defaultValue;
    }
  }

  /** true or false, in any case; anything else is a problem. */
  public boolean bool(String key, boolean defaultValue) {
    String text = string(key, String.valueOf(defaultValue));
    if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
      problems.add(key + ": '" + text + "' is not true or false");
      return defaultValue;
    }
    return Boolean.parseBoolean(text);
  }

  /** Records a problem found by the caller's own check. */
  public void problem(String problem) {
    problems.add(problem);
  }

  /** @throws IllegalArgumentException listing every problem, if there is any */
  public void check(String what) {
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid " + what + " configuration:\n  - " + String.join("\n  - ", problems));
    }
  }
}
