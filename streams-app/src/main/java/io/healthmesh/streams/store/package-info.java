/**
 * The stores every stage uses: in memory ({@link io.healthmesh.streams.store.SkipListStore}),
 * changelogged, mirrored on the heap with reverse indexes.
 */
package io.healthmesh.streams.store;
