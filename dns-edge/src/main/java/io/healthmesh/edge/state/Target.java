package io.healthmesh.edge.state;

import io.healthmesh.events.EntityKind;

/** An entity whose health routing reads. */
record Target(EntityKind kind, String name) {}
