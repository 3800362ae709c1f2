package io.healthmesh.streams.codec;

/** Where an input record was read: named by dead letters and by the causes of transitions. */
public record Origin(String topic, int partition, long offset, long timestamp) {}
