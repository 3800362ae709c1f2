/**
 * What the edge writes about its answers: routing decisions to dns-decisions and logged queries to
 * dns-query-log, from threads of their own so that a slow broker never delays an answer.
 */
package io.healthmesh.edge.log;
