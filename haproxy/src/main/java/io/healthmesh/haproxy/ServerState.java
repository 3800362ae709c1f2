package io.healthmesh.haproxy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One server as HAProxy's {@code show servers state} describes it, reduced to what the adapter
 * manages: the administrative state an operator or the adapter forced, and the user weight.
 */
record ServerState(String backend, String server, Admin admin, int weight) {
  /** The forced administrative states of the runtime API's {@code set server ... state}. */
  enum Admin { ready, drain, maint }

  // srv_admin_state bits: forced maintenance, forced drain (HAProxy's SRV_ADMF_FMAINT and SRV_ADMF_FDRAIN).
  private static final int FORCED_MAINT = 0x01;
  private static final int FORCED_DRAIN = 0x08;

  /** Servers by backend and name, from the answer to {@code show servers state [BACKEND]} (format version 1). */
  static Map<String, Map<String, ServerState>> parse(String answer) {
    Map<String, Map<String, ServerState>> out = new HashMap<>();
    List<String> columns = null;
    for (String line : answer.split("\n")) {
      if (line.startsWith("# ")) {
        columns = List.of(line.substring(2).trim().split(" "));
        continue;
      }
      if (columns == null || line.isBlank()) {
        continue;
      }
      String[] f = line.trim().split(" ");
      int admin = Integer.parseInt(f[columns.indexOf("srv_admin_state")]);
      Admin state = (admin & FORCED_MAINT) != 0 ? Admin.maint : (admin & FORCED_DRAIN) != 0 ? Admin.drain : Admin.ready;
      ServerState s = new ServerState(f[columns.indexOf("be_name")], f[columns.indexOf("srv_name")], state,
          Integer.parseInt(f[columns.indexOf("srv_uweight")]));
      out.computeIfAbsent(s.backend(), b -> new HashMap<>()).put(s.server(), s);
    }
    return out;
  }

  boolean sameAs(Admin admin, int weight) {
    return this.admin == admin && this.weight == weight;
  }
}
