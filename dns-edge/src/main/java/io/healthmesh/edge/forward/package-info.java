/** Sending queries on to other name servers (R-SP-1), without blocking the thread that asks. */
package io.healthmesh.edge.forward;
