package io.healthmesh.edge.state;

import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.edge.routing.Plan;

/** A record set with its plan under the snapshot's health, and the config offset it came from. */
public record RecordSetEntry(ResourceRecordSet config, int type, Plan plan, long version) {}
