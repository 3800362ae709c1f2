/** Immutable maps whose next version shares all that did not change. */
package io.healthmesh.edge.collect;
