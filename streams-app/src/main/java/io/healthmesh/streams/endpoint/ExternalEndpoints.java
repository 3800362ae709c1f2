package io.healthmesh.streams.endpoint;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.streams.codec.Origin;

/**
 * A record set starts or stops health checking an external endpoint (R-DNSHC-4). Once no record
 * set uses it, its state is deleted.
 */
final class ExternalEndpoints {
  private final EndpointTable endpoints;
  private final Owners owners;
  private final EndpointPublisher publisher;

  ExternalEndpoints(EndpointTable endpoints, Owners owners, EndpointPublisher publisher) {
    this.endpoints = endpoints;
    this.owners = owners;
    this.publisher = publisher;
  }

  void apply(String address, ExternalEndpointRef ref, Origin origin) {
    if (!owners.external(address, ref)) {
      endpoints.remove("", address);
      publisher.removed(new EntityKey(EntityKind.EXTERNAL_ENDPOINT, address), origin.timestamp());
    }
  }
}
