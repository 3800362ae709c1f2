/** The stores every stage uses: in memory, changelogged, mirrored on the heap with reverse indexes. */
package io.healthmesh.streams.store;
