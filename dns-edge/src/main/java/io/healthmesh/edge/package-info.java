/**
 * One DNS edge, wired: {@link io.healthmesh.edge.EdgeApp} starts the follower, the listeners and the
 * logs from one validated {@link io.healthmesh.edge.EdgeSettings}. The rooms beneath never use it.
 */
package io.healthmesh.edge;
