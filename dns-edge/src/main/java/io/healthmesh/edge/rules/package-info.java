/**
 * docs/rules.md section 4 limits on zones, record sets and policies: one implementation, used by
 * the edge before it serves and by healthctl before it writes.
 */
package io.healthmesh.edge.rules;
