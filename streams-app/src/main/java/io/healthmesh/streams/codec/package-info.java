/** How records travel between the stages: serdes, the framing of the internal hops, and where a record was read. */
package io.healthmesh.streams.codec;
