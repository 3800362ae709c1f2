/**
 * The per-service stage (docs/rules.md section 1): endpoint state machines, service counts and the
 * DNS-target health of load balancers, in the task of each backend service. {@link
 * io.healthmesh.streams.endpoint.PerServiceProcessor} hands each input to its handler by type.
 */
package io.healthmesh.streams.endpoint;
