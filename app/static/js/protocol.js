// The protocol's words as the server defines them (GET /api/protocol): its version, the
// close codes and which of them end a session, bot levels and variants. Loaded once,
// before the first page is drawn; nothing here is written again in the client.

import { api } from "./api.js";

/** {version, close_codes: {NAME: code}, final_close_codes, levels, variants}, once loaded. */
export const protocol = {};

let loading = null;

/** Load the protocol once; a failed load is tried again at the next call. */
export function loadProtocol() {
  loading ??= api("GET", "/api/protocol").then(
    (served) => { Object.assign(protocol, served); },
    (error) => { loading = null; throw error; });
  return loading;
}
