/**
 * The edge's published answers to "why": what a record set's policy does under given health, and
 * which way a client's query goes, decided by the edge's own planner, engine and snapshot, so that
 * an audit ({@code healthctl audit explain}) and a running edge can never disagree. The only room
 * other modules use besides the wiring, the rules and the DNSSEC key files.
 */
package io.healthmesh.edge.explain;
