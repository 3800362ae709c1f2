/** Response and server policies (R-RP-1, R-SP-1): who may ask what, and rules that answer first. */
package io.healthmesh.edge.policy;
