/**
 * Transport: the UDP and TCP listeners (RFC 7766 limits, batched native UDP where built) that hand
 * each datagram or message to a {@link io.healthmesh.edge.answer.Responder} and count what happened.
 */
package io.healthmesh.edge.server;
