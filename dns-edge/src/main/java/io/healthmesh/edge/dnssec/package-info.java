/**
 * DNSSEC: zone keys in BIND's key files (also written by healthctl's key commands), key timing and
 * rollover, and signing answers online with cached signatures.
 */
package io.healthmesh.edge.dnssec;
