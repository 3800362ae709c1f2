package io.healthmesh.cli.config;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One YAML or JSON document as read from a file.
 *
 * @param origin where it came from, {@code file:document-number} (1-based), used in every message
 */
public record Document(String origin, JsonNode body) {}
