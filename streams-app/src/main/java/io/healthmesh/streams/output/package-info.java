/** What the stages emit, and the one place that builds a state and its transition ({@link io.healthmesh.streams.output.Emitter}). */
package io.healthmesh.streams.output;
