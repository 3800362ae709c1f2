/**
 * Routing policies (WRR, geolocation, failover with trickle traffic) as plans built from a record
 * set and the health it checks, and the engine that draws one answer from a plan (docs/rules.md).
 */
package io.healthmesh.edge.routing;
