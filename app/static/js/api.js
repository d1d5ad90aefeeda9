// REST calls with the player's token (a guest's or an account's session); errors become
// ApiError with the server's code.

const GUEST_KEY = "belote.guest";

export class ApiError extends Error {
  /** `fields`: for a request that did not validate, `[{field, code, message}]`. */
  constructor(status, code, message, fields = [], retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.retryAfter = retryAfter; // seconds, when the server said (too_many_attempts)
  }

  /** The wait the server asked for, in whole minutes (at least one; a minute if unsaid). */
  get retryMinutes() {
    return Math.max(1, Math.ceil((this.retryAfter || 60) / 60));
  }
}

/** The stored player `{id, name, token, account?}` (a guest, or an account when `account`
 *  is true), or null. */
export function guest() {
  try {
    const stored = JSON.parse(localStorage.getItem(GUEST_KEY));
    return stored && stored.token ? stored : null;
  } catch {
    return null;
  }
}

/** Whether the stored player is an account (rated play, a profile, a password). */
export function isAccount() {
  const me = guest();
  return Boolean(me && me.account);
}

export const GUEST_FORGOTTEN = "belote:guest-forgotten";

let loggingOut = false; // this tab ends its own session: its sockets closing with SESSION_ENDED is no news

/** Drop the stored player (its token was refused, or the session ended: `sessionEnded`,
 *  which the app says before showing the log-in page); the app re-renders on the event. */
export function forgetGuest(sessionEnded = false) {
  if (localStorage.getItem(GUEST_KEY) === null) return; // nothing to forget: no re-render loop
  localStorage.removeItem(GUEST_KEY);
  window.dispatchEvent(new CustomEvent(GUEST_FORGOTTEN, { detail: { sessionEnded: sessionEnded && !loggingOut } }));
}

/** Make a guest identity (a new name makes a new guest: names are part of the token). */
export async function createGuest(name) {
  const created = await api("POST", "/api/guests", { name });
  localStorage.setItem(GUEST_KEY, JSON.stringify(created));
  return created;
}

/** Sign up (`signup`: a guest's token goes with it, so the guest keeps its id and
 *  history) or log in; the account's session is kept in place of the guest. */
export async function enter(mode, username, password) {
  const created = mode === "signup"
    ? await api("POST", "/api/accounts", { username, password })
    : await api("POST", "/api/sessions", { username, password }, { anonymous: true });
  localStorage.setItem(GUEST_KEY, JSON.stringify({ ...created, account: true }));
  return created;
}

/** Log out: the session ends on the server, then here (also when the server says it had
 *  already ended). */
export async function logOut() {
  loggingOut = true;
  try {
    await api("DELETE", "/api/sessions");
  } catch (error) {
    if (error.status !== 401) throw error;  // still signed in, here and there: try again
  } finally {
    loggingOut = false;
  }
  forgetGuest();
}

/** `anonymous`: send no token (a log-in must not carry the guest it replaces). */
export async function api(method, path, body, { anonymous = false } = {}) {
  const headers = { Accept: "application/json" };
  const me = anonymous ? null : guest();
  if (me) headers.Authorization = `Bearer ${me.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (exc) {
    throw new ApiError(0, "network", String(exc));
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    // Every error of the server is {"detail": {code, message, fields?}} (docs/protocol.md);
    // a body without it (a proxy's error page) is told by its status alone.
    const detail = (data && data.detail) || {};
    // A token nobody has any more (an ended session: the app says so); a wrong password
    // (`bad_credentials`) keeps the player as they were.
    if (response.status === 401 && me && detail.code !== "bad_credentials") forgetGuest(me.account);
    throw new ApiError(response.status, detail.code || "http",
      detail.message || `${response.status} ${response.statusText}`, detail.fields,
      Number(response.headers.get("Retry-After")) || null);
  }
  return data;
}
