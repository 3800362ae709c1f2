/** What the edge tells the cluster about itself, on edge-status. */
package io.healthmesh.edge.status;
