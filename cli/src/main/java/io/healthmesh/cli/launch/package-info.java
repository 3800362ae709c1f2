/**
 * healthctl's launchers: {@code demo} (every component in one process, with a probe simulator and
 * its faults), {@code topology}, {@code edge}, {@code registry}, {@code haproxy} and {@code xds}
 * (one component as its own process). The only part of the CLI that starts components; the other
 * commands talk to a running cluster.
 */
package io.healthmesh.cli.launch;
