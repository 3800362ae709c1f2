/**
 * Answering one query from a snapshot ({@link io.healthmesh.edge.answer.Responder}): guard clauses
 * to response codes, the fast path for plain A and AAAA questions, zones, policies, forwarding and
 * signing. Bytes in, bytes out; no socket and no topic.
 */
package io.healthmesh.edge.answer;
